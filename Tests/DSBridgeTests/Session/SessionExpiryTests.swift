// SPDX-License-Identifier: MIT
import DSBridge
import Synchronization
import Testing

@Suite("Session expiry and timeouts, with a clock moved by hand")
struct SessionExpiryTests {
    @Test("a session without a socket ends exactly graceMs after the socket closed")
    func graceExpiry() async throws {
        let clock = ManualExecutor()
        let bridge = Bridge(
            configuration: {
                var c = BridgeConfiguration(); c.graceMs = 1000; return c
            }(), executor: clock)
        let first = bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: CountingWaker())
        let h = BridgeHarness(sharing: bridge, connection: first)
        let token = try #require(try await h.hello()["token"]?.stringValue)
        first.socketClosed()
        clock.advance(milliseconds: 999)
        #expect(bridge.session(token: token) != nil)
        clock.advance(milliseconds: 1)
        #expect(bridge.session(token: token) == nil)
    }

    @Test("a socket that resumes within the grace period keeps the session alive")
    func resumeCancelsExpiry() async throws {
        let clock = ManualExecutor()
        let bridge = Bridge(
            configuration: {
                var c = BridgeConfiguration(); c.graceMs = 1000; return c
            }(), executor: clock)
        let first = bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: CountingWaker())
        let token = try #require(try await BridgeHarness(sharing: bridge, connection: first).hello()["token"]?.stringValue)
        first.socketClosed()
        clock.advance(milliseconds: 500)
        let second = BridgeHarness(sharing: bridge, connection: bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: CountingWaker()))
        second.send(["t": "hello", "v": 1, "token": .string(token)])
        #expect(try await second.messages(1)[0]["resumed"] == true)
        clock.advance(milliseconds: 5000)
        #expect(bridge.session(token: token) != nil)
    }

    @Test("a session made by POST /dsbridge/session that no socket attaches to expires")
    func postedSessionExpires() throws {
        let clock = ManualExecutor()
        let bridge = Bridge(
            configuration: {
                var c = BridgeConfiguration(); c.graceMs = 300; return c
            }(), executor: clock)
        let session = try bridge.createSession(peerAddress: "127.0.0.1", origin: nil)
        clock.advance(milliseconds: 300)
        #expect(session.isEnded)
    }

    @Test("a native call times out when its timeout passes")
    func callTimeout() async throws {
        let clock = ManualExecutor()
        let bridge = Bridge(executor: clock)
        let h = BridgeHarness(sharing: bridge, connection: bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: CountingWaker()))
        let session = try #require(bridge.session(token: try await h.hello()["token"]?.stringValue ?? ""))
        let events = Mutex<[NativeCallEvent]>([])
        session.callJavaScript("slow", timeout: .milliseconds(250)) { e in events.withLock { $0.append(e) } }
        clock.advance(milliseconds: 249)
        #expect(events.withLock { $0 }.isEmpty)
        clock.advance(milliseconds: 1)
        #expect(events.withLock { $0 } == [.failed(.timeout)])
    }

    @Test("session limits: maxSessions and maxSessionsPerAddress refuse with 4029; IPv4-mapped counts as IPv4")
    func limits() throws {
        let bridge = Bridge(
            configuration: {
                var c = BridgeConfiguration(); c.maxSessions = 3; c.maxSessionsPerAddress = 2; return c
            }())
        _ = try bridge.createSession(peerAddress: "10.0.0.1", origin: nil)
        _ = try bridge.createSession(peerAddress: "::ffff:10.0.0.1", origin: nil)
        #expect(throws: SessionRefusal(code: 4029, reason: "too many sessions from this address")) {
            try bridge.createSession(peerAddress: "10.0.0.1", origin: nil)
        }
        _ = try bridge.createSession(peerAddress: "10.0.0.2", origin: nil)
        #expect(throws: SessionRefusal(code: 4029, reason: "too many sessions")) {
            try bridge.createSession(peerAddress: "10.0.0.3", origin: nil)
        }
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import Dispatch
import Foundation
import Testing

/// An authenticator that holds every hello until the test lets it go: the socket can close
/// while the hello runs, deterministically.
final class GateAuthenticator: SessionAuthenticator {
    let entered = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    func authorize(_ request: SessionRequest) -> Bool {
        entered.signal()
        gate.wait()
        return true
    }
}

/// Every session ends or expires, whatever races its hello (issue 13).
@Suite("hello racing a close")
struct AttachRaceTests {
    @Test("a new session whose socket closed while its hello ran ends at once and frees its place")
    func newSession() async throws {
        let auth = GateAuthenticator()
        let bridge = Bridge(
            configuration: {
                var c = BridgeConfiguration(); c.maxSessions = 1; return c
            }(), authenticator: auth)
        let connection = bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: CountingWaker())
        connection.receive(Array(#"{"t":"hello","v":1}"#.utf8))
        auth.entered.wait()
        connection.socketClosed()
        auth.gate.signal()
        // The hello has run once the connection asks to close (its socket is gone: 4004).
        #expect(await eventually { if case .close? = connection.nextAction() { true } else { false } })
        #expect(bridge.sessions.isEmpty)
        // The place is free: another page gets a session.
        let next = bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: CountingWaker())
        next.receive(Array(#"{"t":"hello","v":1}"#.utf8))
        auth.entered.wait()
        auth.gate.signal()
        #expect(await eventually { next.session != nil })
    }

    @Test("a resume whose socket closed while its hello ran leaves the session to expire after graceMs")
    func resumedSession() async throws {
        let auth = GateAuthenticator()
        // The hello blocks a real worker; the grace period runs on a clock the test moves.
        let clock = ManualExecutor(realWorkers: true)
        let bridge = Bridge(
            configuration: {
                var c = BridgeConfiguration(); c.graceMs = 200; return c
            }(), executor: clock, authenticator: auth)
        let first = bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: CountingWaker())
        first.receive(Array(#"{"t":"hello","v":1}"#.utf8))
        auth.entered.wait()
        auth.gate.signal()
        #expect(await eventually { first.session != nil })
        let session = try #require(first.session)
        first.socketClosed()  // grace starts
        let second = bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: CountingWaker())
        second.receive(Array(#"{"t":"hello","v":1,"token":"\#(session.token)"}"#.utf8))
        auth.entered.wait()
        second.socketClosed()
        auth.gate.signal()
        #expect(await eventually { if case .close? = second.nextAction() { true } else { false } })
        clock.advance(milliseconds: 199)
        #expect(!session.isEnded)
        clock.advance(milliseconds: 1)
        #expect(session.isEnded, "expired exactly graceMs after the failed resume")
        #expect(bridge.session(token: session.token) == nil)
    }
}

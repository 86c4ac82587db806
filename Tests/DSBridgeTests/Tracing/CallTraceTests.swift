// SPDX-License-Identifier: MIT
import DSBridge
import Testing

/// A session's recent calls for the admin page (``CallTrace``; issue 17, point 1): kept only
/// while watched, the newest 50, each with its outcome.
@Suite("Recent calls of a session")
struct CallTraceTests {
    @Test("calls are counted always, but recorded only while somebody watches, until the watch ends")
    func recordedWhileWatched() async throws {
        let clock = ManualExecutor()
        let h = BridgeHarness(executor: clock)
        let welcome = try await h.hello()
        let session = try #require(h.bridge.session(id: welcome["session"]?.stringValue ?? ""))
        h.call(1, "p.value", 1)
        _ = try await h.messages(1)
        #expect(session.trace.recent.isEmpty, "nobody watches: nothing recorded")
        #expect(session.callsMade == 1)

        session.trace.watch(forMilliseconds: 1000, now: h.bridge.executor.uptimeMilliseconds)
        h.call(2, "p.value", 2)
        h.call(3, "p.nothing", 3)
        h.call(4, "p.int", "x")
        _ = try await h.messages(3)
        let recent = session.trace.recent
        #expect(recent.map(\.method) == ["p.int", "p.nothing", "p.value"], "newest first")
        #expect(recent.map(\.outcome) == ["badArgument", "methodNotFound", "ok"])
        #expect(recent[2].microseconds != nil, "a method that ran has its time")
        #expect(recent[1].microseconds == nil, "a refused call has none")

        clock.advance(milliseconds: 1000)
        h.call(5, "p.value", 5)
        _ = try await h.messages(1)
        #expect(session.trace.recent.count == 3, "the watch ended: not recorded")
        #expect(session.callsMade == 5)
    }

    @Test("only the newest 50 are kept; a long method name is cut to 200 characters")
    func bounded() async throws {
        let h = BridgeHarness()
        let welcome = try await h.hello()
        let session = try #require(h.bridge.session(id: welcome["session"]?.stringValue ?? ""))
        session.trace.watch(forMilliseconds: 60_000, now: h.bridge.executor.uptimeMilliseconds)
        for i in 1...60 { h.call(Int64(i), "p.value", .integer(Int64(i))) }
        _ = try await h.messages(60)
        h.call(61, String(repeating: "m", count: 500), nil)
        _ = try await h.messages(1)
        let recent = session.trace.recent
        #expect(recent.count == CallTrace.capacity)
        #expect(recent.first?.method.count == 200)
        #expect(recent.first?.outcome == "methodNotFound")
    }

    @Test("watching one session records its calls only, not those of other sessions calling at the same time")
    func onlyTheWatchedSession() async throws {
        let watched = BridgeHarness()
        let other = BridgeHarness()
        let watchedSession = try #require(watched.bridge.session(id: try await watched.hello()["session"]?.stringValue ?? ""))
        let otherSession = try #require(other.bridge.session(id: try await other.hello()["session"]?.stringValue ?? ""))
        watchedSession.trace.watch(forMilliseconds: 60_000, now: watched.bridge.executor.uptimeMilliseconds)
        for i in 1...3 {
            watched.call(Int64(i), "p.value", .integer(Int64(i)))
            other.call(Int64(i), "p.value", .integer(Int64(i)))
        }
        _ = try await watched.messages(3)
        _ = try await other.messages(3)
        #expect(watchedSession.trace.recent.count == 3)
        #expect(otherSession.trace.recent.isEmpty)
        #expect(otherSession.callsMade == 3)
    }
}

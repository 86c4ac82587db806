// SPDX-License-Identifier: MIT
import DSBridge
import Dispatch
import Synchronization
import Testing

@testable import DSBridge

@Suite("Native-initiated calls from Swift")
struct NativeCallTests {
    private func readySession(_ h: BridgeHarness) async throws -> BridgeSession {
        let welcome = try await h.hello()
        h.call(1, "_dsb.dsinit", nil)
        _ = try await h.messages(1)
        return try #require(h.bridge.session(token: welcome["token"]?.stringValue ?? ""))
    }

    @Test("a typed async call returns the page's final value")
    func typedCall() async throws {
        let h = BridgeHarness()
        let session = try await readySession(h)
        async let sum: Int = session.call("addValue", with: [3, 4])
        let invoke = try await h.messages(1)[0]
        #expect(invoke["method"] == "addValue")
        h.call(2, "_dsb.returnValue", ["id": invoke["callbackId"] ?? .null, "data": 7, "complete": true])
        #expect(try await sum == 7)
    }

    @Test("a result of another type fails with returnTypeMismatch")
    func mismatch() async throws {
        let h = BridgeHarness()
        let session = try await readySession(h)
        let text = Task { () async throws -> String in try await session.call("addValue", with: [3, 4]) }
        let invoke = try await h.messages(1)[0]
        h.call(2, "_dsb.returnValue", ["id": invoke["callbackId"] ?? .null, "data": 7])
        await #expect(throws: JavaScriptCallError.returnTypeMismatch(7)) { try await text.value }
    }

    @Test("deliveries stream progress values, then the final one")
    func stream() async throws {
        let h = BridgeHarness()
        let session = try await readySession(h)
        let stream = session.deliveries(of: "startTimer")
        let invoke = try await h.messages(1)[0]
        let id = invoke["callbackId"] ?? .null
        for v in 0..<5 { h.call(Int64(2 + v), "_dsb.returnValue", ["id": id, "data": .integer(Int64(v)), "complete": false]) }
        h.call(10, "_dsb.returnValue", ["id": id, "data": 5])
        var got: [JavaScriptDelivery] = []
        for try await d in stream { got.append(d) }
        #expect(got == [.progress(0), .progress(1), .progress(2), .progress(3), .progress(4), .final(5)])
    }

    @Test("hasJavascriptMethod invokes _hasJavascriptMethod with [name, \"all\"]")
    func hasJavascriptMethod() async throws {
        let h = BridgeHarness()
        let session = try await readySession(h)
        async let has = session.hasJavascriptMethod(named: "asyn.addValue")
        let invoke = try await h.messages(1)[0]
        #expect(invoke["method"] == "_hasJavascriptMethod")
        #expect(invoke["args"] == ["asyn.addValue", "all"])
        h.call(2, "_dsb.returnValue", ["id": invoke["callbackId"] ?? .null, "data": true])
        #expect(try await has)
    }

    @Test("a call without an answer times out; a page error fails it; ending the session fails the rest")
    func failures() async throws {
        let h = BridgeHarness()
        let session = try await readySession(h)
        let never = Task { () async throws -> Int in try await session.call("never", timeout: .milliseconds(30)) }
        _ = try await h.messages(1)  // its invoke went out: the timeout is scheduled
        h.executor.advance(milliseconds: 29)
        h.executor.advance(milliseconds: 1)
        await #expect(throws: JavaScriptCallError.call(.timeout)) { try await never.value }
        let failing = Task { () async throws -> Int in try await session.call("throws") }
        let invokes = try await h.messages(1)
        h.call(2, "_dsb.returnValue", ["id": invokes[0]["callbackId"] ?? .null, "complete": true, "error": "boom"])
        await #expect(throws: JavaScriptCallError.call(.javaScript("boom"))) { try await failing.value }
        let pending = Task { () async throws -> Int in try await session.call("pending") }
        _ = try await h.messages(2)  // the ret of the returnValue call, the invoke
        session.end(reason: "test", closeCode: nil)
        await #expect(throws: JavaScriptCallError.call(.sessionEnded)) { try await pending.value }
    }

    @Test("broadcast calls every ready session")
    func broadcast() async throws {
        let h = BridgeHarness()
        _ = try await readySession(h)
        #expect(h.bridge.broadcast("refresh", args: ["all"]) == 1)
        #expect(try await h.messages(1)[0]["method"] == "refresh")
    }
}

/// Timeouts of native-initiated calls on the real executor's timer thread.
@Suite("Native call timeouts")
struct NativeCallTimeoutTests {
    @Test("a call answered before its timeout leaves nothing on the timer thread; an unanswered one stays until it times out")
    func answeredCallReleasesItsTimeout() async throws {
        let timers = DelayedWork(threadName: "test-timer-3")
        let bridge = Bridge(executor: OwnTimersExecutor(timers: timers))
        let page = BridgeHarness(sharing: bridge, connection: bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: CountingWaker()))
        let token = try #require(try await page.hello()["token"]?.stringValue)
        page.call(1, "_dsb.dsinit", nil)
        _ = try await page.messages(1)
        let session = try #require(bridge.session(token: token))
        let outcomes = Mutex<[NativeCallEvent]>([])
        for i in 0..<50 {
            session.callJavaScript("f", args: [.integer(Int64(i))], timeout: .seconds(60)) { e in outcomes.withLock { $0.append(e) } }
        }
        #expect(timers.pendingCount == 50)
        let invokes = try await page.messages(50)
        for (n, invoke) in invokes.enumerated() where n < 49 {
            let callbackId = try #require(invoke["callbackId"])
            page.call(Int64(2 + n), "_dsb.returnValue", ["id": callbackId, "data": "ok", "complete": true])
        }
        #expect(await page.eventually { outcomes.withLock { $0.count } == 49 })
        #expect(await page.eventually { timers.pendingCount == 1 }, "only the unanswered call's timeout is left")
    }
}

/// The real executor's workers and timer thread, but a timer thread of its own, so a test can
/// count the work pending there.
struct OwnTimersExecutor: BridgeExecutor {
    let timers: DelayedWork

    func execute(_ work: @escaping @Sendable () -> Void) { DispatchQueue.global().async(execute: work) }

    func schedule(afterMilliseconds milliseconds: Int, _ work: @escaping @Sendable () -> Void) {
        timers.schedule(afterMilliseconds: milliseconds, work)
    }

    func scheduleCancellable(afterMilliseconds milliseconds: Int, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        ScheduledWork(id: timers.schedule(afterMilliseconds: milliseconds, work), timers: timers)
    }

    var uptimeMilliseconds: Int64 { DispatchBridgeExecutor().uptimeMilliseconds }
}

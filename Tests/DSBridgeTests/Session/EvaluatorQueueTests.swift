// SPDX-License-Identifier: MIT
import DSBridge
import Synchronization
import Testing

@Suite("The per-session evaluator queue")
struct EvaluatorQueueTests {
    private func session(_ h: BridgeHarness) async throws -> BridgeSession {
        let welcome = try await h.hello()
        return try #require(h.bridge.session(token: welcome["token"]?.stringValue ?? ""))
    }

    @Test("10,000 native calls made before dsinit are held, then sent in order, coalesced into batches")
    func tenThousandInOrder() async throws {
        let h = BridgeHarness { $0.replayMaxMessages = 20_000 }
        let s = try await session(h)
        for i in 0..<10_000 { s.callJavaScript("f", args: [.integer(Int64(i))]) { _ in } }
        #expect(s.queuedCount == 10_000)
        h.executor.runUntilIdle()
        #expect(h.connection.nextAction() == nil, "nothing is sent before dsinit")
        h.call(1, "_dsb.dsinit", nil)
        var frames = 0
        var messages: [JSONValue] = []
        // dsinit ran on the test's thread (the harness drains its executor): everything
        // it released is queued by now.
        while messages.count < 10_001 {
            guard case .write(let bytes)? = h.connection.nextAction() else { break }
            frames += 1
            let v = try JSONParser.parse(bytes)
            messages.append(contentsOf: v.arrayValue ?? [v])
        }
        let invokes = messages.filter { $0["t"] == "invoke" }
        #expect(invokes.count == 10_000)
        #expect(invokes.map { $0["args"]?.arrayValue?.first ?? .null } == (0..<10_000).map { JSONValue.integer(Int64($0)) })
        #expect(invokes.map { $0["callbackId"]?.integerValue ?? 0 } == Array(1...10_000))
        let seqs = messages.compactMap { $0["seq"]?.integerValue }
        #expect(seqs == Array(1...Int64(seqs.count)))
        #expect(frames < 200, "pending messages are coalesced (\(frames) frames)")
    }

    @Test("over the replay bound without acks, the session ends with 4008 and its native calls fail")
    func replayBound() async throws {
        let h = BridgeHarness { $0.replayMaxMessages = 5 }
        let s = try await session(h)
        let failed = Atomic<Int>(0)
        h.call(1, "_dsb.dsinit", nil)
        for i in 2...5 { h.call(Int64(i), "p.value", .integer(Int64(i))) }
        _ = try await h.messages(5)
        s.callJavaScript("late") { e in if case .failed(.sessionEnded) = e { failed.add(1, ordering: .relaxed) } }
        h.call(6, "p.value", 6)
        #expect(try await h.closeCode() == 4008)
        #expect(s.isEnded)
        #expect(failed.load(ordering: .relaxed) == 1)
    }

    @Test("acks keep a busy session under the bound")
    func acksTrim() async throws {
        let h = BridgeHarness { $0.replayMaxMessages = 5 }
        _ = try await h.hello()
        for i in 1...50 {
            h.call(Int64(i), "p.value", .integer(Int64(i)))
            let m = try await h.messages(1)
            h.send(["t": "ack", "seq": m[0]["seq"] ?? 0])
        }
        h.call(51, "p.value", "still open")
        #expect(try await h.messages(1)[0]["data"] == "still open")
    }

    @Test("returnValue complete false, false, true gives 3 deliveries, then nothing; unknown ids are ignored")
    func returnValueSequence() async throws {
        let h = BridgeHarness()
        let s = try await session(h)
        h.call(1, "_dsb.dsinit", nil)
        _ = try await h.messages(1)
        let events = Mutex<[NativeCallEvent]>([])
        s.callJavaScript("startTimer") { e in events.withLock { $0.append(e) } }
        let id = try await h.messages(1)[0]["callbackId"] ?? .null
        h.call(2, "_dsb.returnValue", ["id": id, "data": "a", "complete": false])
        h.call(3, "_dsb.returnValue", ["id": id, "data": "b", "complete": false])
        h.call(4, "_dsb.returnValue", ["id": id, "data": "c", "complete": true])
        h.call(5, "_dsb.returnValue", ["id": id, "data": "d", "complete": true])
        h.call(6, "_dsb.returnValue", ["id": 424242, "data": "x"])
        let answers = try await h.messages(5)
        #expect(answers.allSatisfy { $0["code"] == 0 })
        let expected: [NativeCallEvent] = [.progress("a"), .progress("b"), .completed("c")]
        #expect(await h.eventually { events.withLock { $0.count } >= expected.count })
        #expect(events.withLock { $0 } == expected)
    }

    @Test("a native call too large for the replay bound fails at its caller and is never sent")
    func tooLarge() async throws {
        let h = BridgeHarness { $0.replayMaxBytes = 1000 }
        let s = try await session(h)
        h.call(1, "_dsb.dsinit", nil)
        _ = try await h.messages(1)
        let result = Mutex<NativeCallEvent?>(nil)
        s.callJavaScript("big", args: [.string(String(repeating: "x", count: 2000))]) { e in result.withLock { $0 = e } }
        if case .failed(.tooLarge)? = result.withLock({ $0 }) {} else { Issue.record("expected tooLarge, got \(String(describing: result.withLock { $0 }))") }
        h.call(2, "p.value", "ok")
        #expect(try await h.messages(1)[0]["data"] == "ok")
    }
}

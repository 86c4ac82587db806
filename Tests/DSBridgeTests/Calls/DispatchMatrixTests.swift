// SPDX-License-Identifier: MIT
import DSBridge
import Synchronization
import Testing

@Suite("Dispatch follows PROTOCOL.md 2.4 and 5")
struct DispatchMatrixTests {
    @Test("no stub + sync method: ret with the value")
    func syncWithoutStub() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, "p.value", ["x": 1])
        #expect(try await h.messages(1) == [["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ["x": 1]]])
    }

    @Test("stub + async method: ret \"\" at once, then each completion as cb; nothing after the final one")
    func asyncWithStub() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, "p.twice", nil, stub: "dscb0")
        h.call(2, "p.value", "after")
        let m = try await h.messages(4)
        #expect(m[0] == ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ""])
        #expect(m[1] == ["t": "cb", "seq": 2, "stub": "dscb0", "data": 1, "complete": false])
        #expect(m[2] == ["t": "cb", "seq": 3, "stub": "dscb0", "data": 2, "complete": true])
        #expect(m[3]["id"] == 2)
    }

    @Test("stub + sync method: ret with the value, then the same value as one final cb")
    func syncWithStub() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, "p.value", "v", stub: "dscb4")
        #expect(
            try await h.messages(2) == [
                ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": "v"],
                ["t": "cb", "seq": 2, "stub": "dscb4", "data": "v", "complete": true],
            ])
    }

    @Test("no stub + async method: runs fire-and-forget, ret \"\", completions dropped")
    func asyncWithoutStub() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, "p.twice", nil)
        h.call(2, "p.value", "next")
        #expect(
            try await h.messages(2) == [
                ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ""],
                ["t": "ret", "seq": 2, "id": 2, "code": 0, "data": "next"],
            ])
    }

    @Test("unknown method or namespace: methodNotFound, nothing runs")
    func notFound() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, "p.nope", nil, stub: "dscb0")
        h.call(2, "q.value", nil)
        let m = try await h.messages(2)
        #expect(m.map { $0["error"]?["kind"] } == ["methodNotFound", "methodNotFound"])
        #expect(m.allSatisfy { $0["code"] == -1 && $0["data"] == "" })
    }

    @Test("void answers \"\", a JSON null result is null, a throwing sync method is failed")
    func results() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, "p.void", nil)
        h.call(2, "p.null", nil)
        h.call(3, "p.throws", nil, stub: "dscb0")
        let m = try await h.messages(3)
        #expect(m[0]["data"] == "")
        #expect(m[1]["data"] == .null)
        #expect(m[2]["code"] == -1)
        #expect(m[2]["error"]?["kind"] == "failed")
        // A failed sync call with a stub gets no cb.
        h.call(4, "p.value", 1)
        #expect(try await h.messages(1)[0]["id"] == 4)
    }

    @Test("an argument of the wrong type is badArgument")
    func badArgument() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, "p.int", "1")
        h.call(2, "p.int", 1.5)
        h.call(3, "p.int", 41)
        let m = try await h.messages(3)
        #expect(m[0]["error"]?["kind"] == "badArgument")
        #expect(m[1]["error"]?["kind"] == "badArgument")
        #expect(m[2]["data"] == 42)
    }

    @Test("an async method that throws before completing ends its stub with a failed cb")
    func asyncThrows() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, "p.throwsFirst", nil, stub: "dscb9")
        let m = try await h.messages(2)
        #expect(m[0] == ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ""])
        #expect(m[1]["t"] == "cb")
        #expect(m[1]["complete"] == true)
        #expect(m[1]["error"]?["kind"] == "failed")
    }

    @Test("over maxAsyncCalls running async calls, a call is overloaded")
    func overloaded() async throws {
        let h = BridgeHarness { $0.maxAsyncCalls = 2 }
        _ = try await h.hello()
        h.call(1, "p.later", 1, stub: "dscb1")
        h.call(2, "p.later", 2, stub: "dscb2")
        h.call(3, "p.later", 3, stub: "dscb3")
        let m = try await h.messages(5)
        let rets = m.filter { $0["t"] == "ret" }
        #expect(rets.count == 3)
        #expect(rets[2]["error"]?["kind"] == "overloaded")
        h.call(4, "p.later", 4, stub: "dscb4")
        #expect(try await h.messages(2).first?["code"] == 0)
    }

    @Test("hasNativeMethod: all/syn/asyn, unknown type means all, _dsb names are sync")
    func hasNativeMethod() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        let cases: [(String, JSONValue, Bool)] = [
            ("p.value", "all", true), ("p.value", "syn", true), ("p.value", "asyn", false),
            ("p.twice", "syn", false), ("p.twice", "asyn", true), ("p.twice", "whatever", true), ("p.twice", .null, true),
            ("p.none", "all", false), ("_dsb.dsinit", "syn", true), ("_dsb.returnValue", "asyn", false), ("bad..name", "all", false),
        ]
        for (i, c) in cases.enumerated() {
            h.call(Int64(i + 1), "_dsb.hasNativeMethod", ["name": .string(c.0), "type": c.1])
        }
        let m = try await h.messages(cases.count)
        for (i, c) in cases.enumerated() { #expect(m[i]["data"] == .bool(c.2), "\(c.0) \(c.1)") }
        h.call(100, "_dsb.hasNativeMethod", "p.value")
        #expect(try await h.messages(1)[0]["error"]?["kind"] == "badArgument")
    }

    @Test("disableJavascriptDialogBlock is accepted and ignored")
    func dialogBlock() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, "_dsb.disableJavascriptDialogBlock", ["disable": true])
        #expect(try await h.messages(1) == [["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ""]])
    }

    @Test("closePage runs the dismissal handler, answers, then closes 1000 and ends the session")
    func closePage() async throws {
        let dismissed = Atomic<Int>(0)
        let h = BridgeHarness(dismissal: { _ in dismissed.add(1, ordering: .relaxed) })
        let welcome = try await h.hello()
        h.call(1, "_dsb.closePage", nil)
        #expect(try await h.messages(1) == [["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ""]])
        #expect(try await h.closeCode() == 1000)
        #expect(dismissed.load(ordering: .relaxed) == 1)
        #expect(h.bridge.session(token: welcome["token"]?.stringValue ?? "") == nil)
    }

    @Test("native-initiated calls wait for dsinit, then go out in order; returnValue brings progress and the result")
    func invokesAndReturnValue() async throws {
        let h = BridgeHarness()
        let welcome = try await h.hello()
        let session = try #require(h.bridge.session(token: welcome["token"]?.stringValue ?? ""))
        let events = Mutex<[NativeCallEvent]>([])
        session.callJavaScript("addValue", args: [3, 4]) { e in events.withLock { $0.append(e) } }
        session.callJavaScript("startTimer") { e in events.withLock { $0.append(e) } }
        h.call(1, "_dsb.dsinit", nil)
        let m = try await h.messages(3)
        let invokes = m.filter { $0["t"] == "invoke" }
        #expect(invokes.map { $0["callbackId"] } == [1, 2])
        #expect(invokes[0]["method"] == "addValue")
        #expect(invokes[0]["args"] == [3, 4])
        #expect(invokes[1]["method"] == "startTimer")
        #expect(invokes[1]["args"] == [])
        #expect(m.filter { $0["t"] == "ret" }.map { $0["id"] } == [1])
        h.call(2, "_dsb.returnValue", ["id": 2, "data": 0, "complete": false])
        h.call(3, "_dsb.returnValue", ["id": 1, "data": 7])
        h.call(4, "_dsb.returnValue", ["id": 2, "complete": true, "error": "startTimer threw"])
        h.call(5, "_dsb.returnValue", ["id": 99, "data": 1])
        h.call(6, "_dsb.returnValue", ["data": 1])
        let r = try await h.messages(5)
        #expect(r[3]["code"] == 0)
        #expect(r[4]["error"]?["kind"] == "badArgument")
        let expected: [NativeCallEvent] = [.progress(0), .completed(7), .failed(.javaScript("startTimer threw"))]
        #expect(await h.eventually { events.withLock { $0.count } >= expected.count })
        #expect(events.withLock { $0 } == expected)
    }

    @Test("cancel stops a running async call: its task is cancelled and its stub ends with cancelled")
    func cancel() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, "p.untilCancelled", nil, stub: "dscb1")
        let first = try await h.messages(2)
        #expect(first[1] == ["t": "cb", "seq": 2, "stub": "dscb1", "data": "started", "complete": false])
        h.send(["t": "cancel", "id": 1])
        h.send(["t": "cancel", "id": 1])
        h.call(2, "p.value", "after")
        let m = try await h.messages(2)
        #expect(m[0] == ["t": "cb", "seq": 3, "stub": "dscb1", "complete": true, "cancelled": true])
        #expect(m[1]["id"] == 2)
        // Nothing more for dscb1, even though the method saw the cancellation and completed.
        h.call(3, "p.value", "last")
        #expect(try await h.messages(1)[0]["id"] == 3)
    }

    @Test("a second dsinit has no effect")
    func dsinitOnce() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, "_dsb.dsinit", nil)
        h.call(2, "_dsb.dsinit", nil)
        #expect(try await h.messages(2).map { $0["code"] } == [0, 0])
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import Testing

/// One row of the demo table (PROTOCOL.md 8): a method, its argument and its result, from
/// web/demo-rows.json (`toNative`; a row without `arg` sends `data` null).
struct DemoRow: Sendable, CustomTestStringConvertible {
    let method: String
    let data: JSONValue
    let result: JSONValue
    let isAsync: Bool
    var testDescription: String { method }

    static let all: [DemoRow] = DemoRowsFixture.toNative.compactMap { row in
        guard let method = row["method"]?.stringValue, let result = row["result"], let isAsync = row["async"]?.boolValue
        else { return nil }
        return DemoRow(method: method, data: row["arg"] ?? .null, result: result, isAsync: isAsync)
    }
}

@Suite("Demo rows over the WebSocket")
struct DemoRowsOverSocketTests {
    @Test("web/demo-rows.json has DSBridge's eight demo rows, each complete")
    func fixture() {
        #expect(DemoRowsFixture.toNative.count == 8, "\(DemoRowsFixture.url.path)")
        #expect(DemoRow.all.count == DemoRowsFixture.toNative.count)
        #expect(
            DemoRow.all.map(\.method) == [
                "testSyn", "testAsyn", "testNoArgSyn", "testNoArgAsyn", "swift.testSyn", "swift.testAsyn", "echo.syn", "echo.asyn",
            ])
        #expect(DemoRowsFixture.handlerNames.count == 7)
        #expect(DemoRowsFixture.toPage.count == 11)
        // The scripted page answers the native -> JS rows as the demo page does.
        for row in DemoRowsFixture.toPage {
            let answer = ScriptedPage.answers(row["method"]?.stringValue ?? "", row["args"]?.arrayValue ?? [])
            #expect(answer?.progress == row["progress"]?.arrayValue && answer?.final == row["result"], "\(row)")
        }
    }

    @Test("with a callback stub, every row answers as PROTOCOL.md 2.4 says", arguments: DemoRow.all)
    func rowWithStub(row: DemoRow) throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        try ws.send(callMessage(1, row.method, row.data, stub: "dscb0"))
        let ret = try ws.nextMessage()
        #expect(ret["t"] == "ret")
        #expect(ret["id"] == 1)
        #expect(ret["code"] == 0)
        #expect(ret["data"] == (row.isAsync ? "" : row.result))
        let cb = try ws.nextMessage()
        #expect(cb == ["t": "cb", "seq": 2, "stub": "dscb0", "data": row.result, "complete": true])
    }

    @Test("without a callback stub, sync rows return their value and async rows run fire-and-forget", arguments: DemoRow.all)
    func rowWithoutStub(row: DemoRow) throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        try ws.send(callMessage(1, row.method, row.data))
        try ws.send(callMessage(2, "testSyn", "next"))
        let ret = try ws.nextMessage()
        #expect(ret == ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": row.isAsync ? "" : row.result])
        // Nothing else for call 1: the next message answers call 2.
        let next = try ws.nextMessage()
        #expect(next["id"] == 2)
    }

    @Test("callProgress delivers 10 down to 0, each exactly once and in order")
    func callProgress() throws {
        let server = try RunningServer(tickMs: 2)
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        try ws.send(callMessage(1, "callProgress", [:], stub: "dscb7"))
        #expect(try ws.nextMessage() == ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ""])
        var values: [JSONValue] = []
        var completes: [Bool] = []
        while completes.last != true {
            let cb = try ws.nextMessage()
            #expect(cb["stub"] == "dscb7")
            values.append(cb["data"] ?? .null)
            completes.append(cb["complete"]?.boolValue ?? false)
        }
        #expect(values == (0...10).reversed().map { JSONValue.integer(Int64($0)) })
        #expect(completes == Array(repeating: false, count: 10) + [true])
    }

    @Test("2,000 pipelined async calls are answered in order, each ret before its cb")
    func pipelinedAsyncCalls() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        let batch = JSONValue.array((1...2000).map { callMessage(Int64($0), "testAsyn", .string("js+\($0)"), stub: "dscb\($0)") })
        try ws.send(batch)
        var lastSeq: Int64 = 0
        var nextRet: Int64 = 1
        var seenRet = Set<String>()
        var callbacks = 0
        while callbacks < 2000 {
            let m = try ws.nextMessage()
            let seq = m["seq"]?.integerValue ?? 0
            #expect(seq == lastSeq + 1)
            lastSeq = seq
            if m["t"] == "ret" {
                #expect(m["id"]?.integerValue == nextRet)
                seenRet.insert("dscb\(nextRet)")
                nextRet += 1
            } else {
                let stub = m["stub"]?.stringValue ?? ""
                #expect(seenRet.contains(stub), "cb before its ret: \(stub)")
                let n = stub.dropFirst(4)
                #expect(m["data"] == .string("js+\(n) [ asyn call]"))
                callbacks += 1
            }
        }
        #expect(nextRet == 2001)
    }

    @Test("an unknown method or namespace is methodNotFound and runs nothing")
    func unknownMethod() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        for (i, name) in ["testNever", "nope.testSyn", "", ".testSyn", "testSyn.", "a..b", "test Syn", "_dsb.nothing"].enumerated() {
            try ws.send(callMessage(Int64(i + 1), name, "x", stub: "dscb\(i)"))
            let ret = try ws.nextMessage()
            #expect(ret["code"] == -1, "\(name)")
            #expect(ret["error"]?["kind"] == "methodNotFound", "\(name)")
            #expect(ret["data"] == "")
        }
    }

    @Test("an argument of the wrong JSON type is badArgument and runs nothing")
    func badArgument() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        let cases: [(String, JSONValue?)] = [("testSyn", 5), ("testSyn", nil), ("testAsyn", ["a": 1]), ("test.sleepSyn", "10"), ("test.sleepSyn", 20000)]
        for (i, c) in cases.enumerated() {
            try ws.send(callMessage(Int64(i + 1), c.0, c.1, stub: "dscb\(i)"))
            let ret = try ws.nextMessage()
            #expect(ret["code"] == -1, "\(c.0)")
            #expect(ret["error"]?["kind"] == "badArgument", "\(c.0) \(String(describing: c.1))")
        }
        // An `arg` that is neither an object nor a JSON-object string.
        try ws.send(["t": "call", "id": 10, "method": "testSyn", "arg": 7])
        #expect(try ws.nextMessage()["error"]?["kind"] == "badArgument")
        try ws.send(["t": "call", "id": 11, "method": "testSyn", "arg": "[1]"])
        #expect(try ws.nextMessage()["error"]?["kind"] == "badArgument")
        // ...and the session still works.
        try ws.send(["t": "call", "id": 12, "method": "testSyn", "arg": "{\"data\":\"ok\"}"])
        #expect(try ws.nextMessage()["data"] == "ok[ syn call]")
    }
}

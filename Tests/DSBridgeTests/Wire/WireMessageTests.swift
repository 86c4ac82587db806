// SPDX-License-Identifier: MIT
import DSBridge
import Testing

@Suite("Wire messages: page frames in, server messages out")
struct WireMessageTests {
    let decoder = PageFrameDecoder()

    private func decode(_ text: String, helloSeen: Bool = true) throws(ProtocolViolation) -> [PageMessage] {
        try decoder.decode(Array(text.utf8), helloSeen: helloSeen)
    }

    @Test("hello: new, resume with token and ack, auth; defaults")
    func hello() throws {
        #expect(try decode("{\"t\":\"hello\",\"v\":1}", helloSeen: false) == [.hello(.init())])
        #expect(
            try decode("{\"t\":\"hello\",\"v\":1,\"token\":\"T\",\"ack\":7,\"auth\":\"s\",\"x\":1}", helloSeen: false)
                == [.hello(.init(version: 1, token: "T", ack: 7, auth: "s"))])
    }

    @Test(
        "hello refusals name the problem",
        arguments: [
            ("{\"t\":\"hello\"}", "hello needs v"), ("{\"t\":\"hello\",\"v\":2}", "unsupported version"),
            ("{\"t\":\"hello\",\"v\":1,\"token\":null}", "token is not a string"),
            ("{\"t\":\"hello\",\"v\":1,\"auth\":5}", "auth is not a string"),
            ("{\"t\":\"hello\",\"v\":1,\"ack\":1.5}", "ack is not an integer"),
        ])
    func helloErrors(text: String, reason: String) {
        #expect(throws: ProtocolViolation(reason)) { try decode(text, helloSeen: false) }
    }

    @Test("a call keeps its arg as sent: object, string, or omitted")
    func call() throws {
        #expect(try decode("{\"t\":\"call\",\"id\":1,\"method\":\"m\",\"arg\":{\"data\":1}}") == [.call(.init(id: 1, method: "m", arg: ["data": 1]))])
        #expect(
            try decode("{\"t\":\"call\",\"id\":2,\"method\":\"m\",\"arg\":\"{\\\"data\\\":1}\"}") == [.call(.init(id: 2, method: "m", arg: "{\"data\":1}"))])
        #expect(try decode("{\"t\":\"call\",\"id\":3,\"method\":\"m\"}") == [.call(.init(id: 3, method: "m", arg: nil))])
    }

    @Test("a batch is decoded in order; [] is empty")
    func batch() throws {
        #expect(try decode("[{\"t\":\"ack\",\"seq\":3},{\"t\":\"cancel\",\"id\":2}]") == [.ack(seq: 3), .cancel(id: 2)])
        #expect(try decode("[]") == [])
    }

    @Test(
        "a frame is refused as a whole",
        arguments: [
            "x", "1", "[1]", "{\"t\":5}", "{}", "{\"t\":\"welcome\"}", "{\"t\":\"call\",\"id\":0,\"method\":\"m\"}",
            "{\"t\":\"call\",\"id\":1,\"method\":null}", "{\"t\":\"ack\"}", "{\"t\":\"cancel\",\"id\":\"1\"}",
            "[{\"t\":\"ack\",\"seq\":1},{\"t\":\"hello\",\"v\":1}]", "[{\"t\":\"ack\",\"seq\":1},2]",
        ])
    func refusedFrames(text: String) {
        #expect(throws: ProtocolViolation.self) { try decode(text) }
    }

    @Test("the first frame must start with hello, and hello comes only once")
    func helloOrder() throws {
        #expect(throws: ProtocolViolation("expected hello")) { try decode("{\"t\":\"ack\",\"seq\":1}", helloSeen: false) }
        #expect(throws: ProtocolViolation("second hello")) { try decode("{\"t\":\"hello\",\"v\":1}", helloSeen: true) }
        #expect(throws: ProtocolViolation.self) {
            try decode("[{\"t\":\"hello\",\"v\":1},{\"t\":\"call\",\"id\":1,\"method\":\"m\"},{\"t\":\"bad\"}]", helloSeen: false)
        }
        #expect(try decode("[{\"t\":\"hello\",\"v\":1},{\"t\":\"ack\",\"seq\":0}]", helloSeen: false).count == 2)
    }

    @Test("server messages encode exactly as PROTOCOL.md 2.3 shows")
    func encoding() {
        func text(_ m: ServerMessage, _ seq: Int64 = 4) -> String { String(decoding: m.encoded(seq: seq), as: UTF8.self) }
        #expect(text(.ret(id: 3, result: .success(["a": [1, nil]]))) == "{\"t\":\"ret\",\"seq\":4,\"id\":3,\"code\":0,\"data\":{\"a\":[1,null]}}")
        #expect(
            text(.ret(id: 3, result: .failure(CallFailure(.methodNotFound, "no \"x\""))))
                == "{\"t\":\"ret\",\"seq\":4,\"id\":3,\"code\":-1,\"data\":\"\",\"error\":{\"kind\":\"methodNotFound\",\"message\":\"no \\\"x\\\"\"}}")
        #expect(
            text(.cb(stub: "dscb1", payload: .value("v", complete: false))) == "{\"t\":\"cb\",\"seq\":4,\"stub\":\"dscb1\",\"data\":\"v\",\"complete\":false}")
        #expect(text(.cb(stub: "dscb1", payload: .cancelled)) == "{\"t\":\"cb\",\"seq\":4,\"stub\":\"dscb1\",\"complete\":true,\"cancelled\":true}")
        #expect(
            text(.cb(stub: "dscb1", payload: .failure(CallFailure(.failed, "boom"))))
                == "{\"t\":\"cb\",\"seq\":4,\"stub\":\"dscb1\",\"complete\":true,\"error\":{\"kind\":\"failed\",\"message\":\"boom\"}}")
        #expect(
            text(.invoke(callbackId: 1, method: "addValue", args: [3, 4]))
                == "{\"t\":\"invoke\",\"seq\":4,\"callbackId\":1,\"method\":\"addValue\",\"args\":[3,4]}")
        #expect(
            text(.welcome(session: "s", token: "k", lastCall: 2, resumed: true, heartbeatMs: 20000), 0)
                == "{\"t\":\"welcome\",\"session\":\"s\",\"token\":\"k\",\"lastCall\":2,\"resumed\":true,\"heartbeat\":20000}")
        #expect(text(.heartbeat, 0) == "{\"t\":\"hb\"}")
    }

    @Test("the call envelope: object or JSON string; omitted or null is data null")
    func callArgument() throws {
        #expect(try CallArgument(wire: nil) == CallArgument(data: .null))
        #expect(try CallArgument(wire: .null) == CallArgument(data: .null))
        #expect(try CallArgument(wire: ["data": 0, "_dscbstub": "dscb2"]) == CallArgument(data: 0, stub: "dscb2"))
        #expect(try CallArgument(wire: "{\"data\":\"x\",\"_dscbstub\":\"dscb0\"}") == CallArgument(data: "x", stub: "dscb0"))
        #expect(try CallArgument(wire: ["_dscbstub": "dscb1"]) == CallArgument(data: .null, stub: "dscb1"))
        for bad: JSONValue in [5, "x", "[1]", [1], true, ["_dscbstub": 3]] {
            #expect(throws: CallFailure.self) { try CallArgument(wire: bad) }
        }
    }

    @Test("method names split at the last dot; malformed names are refused")
    func methodNames() {
        #expect(MethodName("testSyn").map { [$0.namespace, $0.name] } == ["", "testSyn"])
        #expect(MethodName("echo.syn").map { [$0.namespace, $0.name] } == ["echo", "syn"])
        #expect(MethodName("a.b.c").map { [$0.namespace, $0.name] } == ["a.b", "c"])
        #expect(MethodName("_dsb.dsinit")?.isInternal == true)
        for bad in ["", ".", ".a", "a.", "a..b", "a b", " a", "a\t", "a\u{00A0}b"] {
            #expect(MethodName(bad) == nil, "\(bad)")
        }
    }

    @Test("sync HTTP bodies and After headers are checked")
    func syncCallRequest() throws {
        let r = try SyncCallRequest(body: Array("{\"method\":\"m\",\"arg\":{\"data\":1}}".utf8), afterHeader: "12", maxDepth: 128)
        #expect(r == SyncCallRequest(method: "m", arg: ["data": 1], after: 12))
        #expect(try SyncCallRequest(body: Array("{\"method\":\"m\"}".utf8), afterHeader: nil, maxDepth: 128).after == 0)
        #expect(try SyncCallRequest(body: Array("{\"method\":\"m\"}".utf8), afterHeader: "9007199254740991", maxDepth: 128).after == 9_007_199_254_740_991)
        for after in ["", "01", "-1", "9007199254740992", "1e3", " 1"] {
            #expect(throws: ProtocolViolation.self) { try SyncCallRequest(body: Array("{\"method\":\"m\"}".utf8), afterHeader: after, maxDepth: 128) }
        }
        #expect(
            String(decoding: SyncCallRequest.answerBody(.failure(CallFailure(.timeout, "t"))), as: UTF8.self)
                == "{\"code\":-1,\"data\":\"\",\"error\":{\"kind\":\"timeout\",\"message\":\"t\"}}")
    }
}

@Suite("Invokes encoded off the session lock")
struct EncodedInvokeTests {
    @Test(
        "EncodedInvoke writes exactly what ServerMessage.invoke encodes, and knows its size",
        arguments: [
            (1 as Int64, 1 as Int64), (9, 10), (12_345, 99_999_999), (Int64.max, Int64.max),
        ])
    func sameBytes(seq: Int64, callbackId: Int64) {
        let args: [JSONValue] = ["I", ["a": [1, 2.5, .null, true]], "é\"\\\n😀"]
        let invoke = EncodedInvoke(method: "asyn.addValue", args: args)
        let expected = ServerMessage.invoke(callbackId: callbackId, method: "asyn.addValue", args: args).encoded(seq: seq)
        #expect(invoke.bytes(seq: seq, callbackId: callbackId) == expected)
        #expect(invoke.size(seq: seq, callbackId: callbackId) == expected.count)
    }
}

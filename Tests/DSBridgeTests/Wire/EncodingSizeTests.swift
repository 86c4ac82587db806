// SPDX-License-Identifier: MIT
import DSBridge
import Testing

@Suite("Encoding sizes: estimates and batch boundaries")
struct EncodingSizeTests {
    @Test(
        "the size estimate is exact without escapes or fractional numbers",
        arguments: [
            "null", "true", "false", "0", "7", "-7", "10", "-10", "9223372036854775807", "-9223372036854775808",
            "\"\"", "\"abc\"", "\"é😀\"", "[]", "{}", "[1,2,3]", #"{"a":1,"bc":[true,null,"x"],"d":{}}"#,
            #"[{"t":"call","id":1000000000,"method":"echo.syn","arg":{"data":{"msg":"hello","items":[1,2,3]}}}]"#,
        ])
    func exact(text: String) throws {
        #expect(JSONWriter.estimatedSize(of: try JSONParser.parse(text)) == text.utf8.count)
    }

    @Test(
        "numbers that are not integers are never underestimated",
        arguments: [
            0.5, -0.25, 1e300, -1.2345678901234567e-300, .leastNonzeroMagnitude, 1.7976931348623157e308, 123456.789, 1e15, -1e16,
        ])
    func fractional(number: Double) {
        #expect(JSONWriter.estimatedSize(of: .number(number)) >= JSONWriter.bytes(.number(number)).count)
    }

    @Test("escaped characters are written in full even though the estimate leaves them out")
    func escapes() {
        let value = JSONValue.string("quote \" backslash \\ newline \n control \u{01}")
        #expect(JSONWriter.estimatedSize(of: value) < JSONWriter.bytes(value).count)
        #expect(JSONWriter.string(value) == #""quote \" backslash \\ newline \n control \u0001""#)
    }

    @Test("every server message encodes the same whatever its size", arguments: [1, 9, 10, 99_999, 1_000_000_000, Int64.max])
    func messagesAtNumberWidths(n: Int64) {
        func text(_ m: ServerMessage) -> String { String(decoding: m.encoded(seq: n), as: UTF8.self) }
        #expect(
            text(.ret(id: n, result: .success([0.5, "é", ["k": nil]])))
                == #"{"t":"ret","seq":\#(n),"id":\#(n),"code":0,"data":[0.5,"é",{"k":null}]}"#)
        #expect(
            text(.cb(stub: "dscb\(n)", payload: .value(.integer(n), complete: true)))
                == #"{"t":"cb","seq":\#(n),"stub":"dscb\#(n)","data":\#(n),"complete":true}"#)
        #expect(
            text(.invoke(callbackId: n, method: "m\"", args: [.integer(-n)]))
                == #"{"t":"invoke","seq":\#(n),"callbackId":\#(n),"method":"m\"","args":[-\#(n)]}"#)
        #expect(
            text(.welcome(session: "s", token: "t", lastCall: n, resumed: false, heartbeatMs: Int(n % 1_000_000)))
                == #"{"t":"welcome","session":"s","token":"t","lastCall":\#(n),"resumed":false,"heartbeat":\#(n % 1_000_000)}"#)
    }

    @Test("a batch takes as many messages as fit exactly in maxBatchBytes", arguments: [0, 1])
    func batchBoundary(slack: Int) throws {
        // Each `{"t":"ret","seq":N,"id":N,"code":0,"data":""}` with one-digit N is 45 bytes;
        // three of them as a batch are "[" + 3 × 45 + 2 commas + "]" = 139 bytes.
        var log = OutboundLog(maxBatchBytes: 139 - slack)
        for i in 1...6 { _ = try log.append(.ret(id: Int64(i), result: .success(""))) }
        let taken = log.takeFrame()
        let first = try #require(taken)
        #expect(first.count == (slack == 0 ? 139 : 93))
        #expect(log.sentSeq == (slack == 0 ? 3 : 2))
    }

    @Test(
        "messages below and above the size written into a zero-filled array, with and without escapes, encode as the writer writes them",
        arguments: [0, 100, 4_000, 4_096, 4_200, 1_000_000])
    func messagesOfEverySize(length: Int) {
        for filler in ["x", "\"", "é"] {
            let data = JSONValue.string(String(repeating: filler, count: length))
            var w = JSONWriter()
            w.raw("{\"t\":\"ret\",\"seq\":3,\"id\":7,\"code\":0,\"data\":")
            w.write(data)
            w.raw("}")
            #expect(ServerMessage.ret(id: 7, result: .success(data)).encoded(seq: 3) == w.bytes, "\(length) x \(filler)")
        }
    }
}

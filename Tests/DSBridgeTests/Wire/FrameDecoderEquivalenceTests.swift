// SPDX-License-Identifier: MIT
import TestSupport
import Testing

@testable import DSBridge

/// The frame decoder reads the envelope from the bytes without a JSON tree. These tests hold
/// it to the decoder it replaced: parse the whole frame with ``JSONParser``, then read each
/// message's fields from the parsed objects (``ReferenceDecoder`` below). Same messages,
/// same refusals, same reasons, and a call's `arg` read into the same ``CallArgument``.
@Suite("Frame decoder: the same answers as parsing the whole frame")
struct FrameDecoderEquivalenceTests {
    /// Frames of every kind, each field read by the general decoder (``PageFrameDecoder``).
    static let general: [String] = [
        #"{"t":"call","id":1,"method":"a.b","arg":{"data":{"x":[1,2,{"y":null}]},"_dscbstub":"dscb1"}}"#,
        #"{"t":"call","id":1,"method":"a.b","arg":"{\"data\":5,\"_dscbstub\":\"dscb2\"}"}"#,
        #"{"t":"call","id":1,"method":"a.b","arg":null}"#,
        #"{"t":"call","id":1,"method":"a.b","arg":7}"#,
        #"{"t":"call","id":1,"method":"a.b","arg":{"data":1,"data":2,"_dscbstub":5,"_dscbstub":null}}"#,
        #"{"t":"call","id":1,"method":"a.b","arg":{"d\u0061ta":"escaped key","_dscb\u0073tub":"dscb9"}}"#,
        #"{"\u0074":"call","i\u0064":2,"method":"x","t":"ack","seq":4}"#,
        #"{"t":"ack","t":"call","id":3,"method":"m"}"#,
        #"{"t":"c\u0061ll","id":1.0,"method":"m"}"#,
        #"{"t":"call","id":1e2,"method":"m"}"#,
        #"{"t":"call","id":0,"method":"m"}"#,
        #"{"t":"call","id":"1","method":"m"}"#,
        #"{"t":"call","id":1,"method":5}"#,
        #"{"t":"call","id":1}"#,
        #"{"t":5}"#,
        #"{"id":1}"#,
        #"{"t":"nope-\u00e9-a-long-type-name-longer-than-32-bytes"}"#,
        #"[{"t":"ack","seq":1},{"t":"cancel","id":2},{"t":"call","id":3,"method":"m","arg":{"data":"é😀"}}]"#,
        #"[{"t":"ack","seq":1},5,{"t":"nope"}]"#,
        #"[{"t":"nope"},5]"#,
        #"[]"#, #"{}"#, #"5"#, #""x""#, #"null"#, #""#, #"   "#, #"{"t":"ack","seq":1} x"#,
        #"{"t":"ack","seq":1,}"#, #"{"t":"ack" "seq":1}"#, #"{"t":"ack","seq":01}"#, #"{"t":"ack","seq":-}"#,
        #"{"t":"ack","seq":1,"x":"\ud800"}"#, #"{"t":"ack","seq":1,"x":"\udc00"}"#,
        #"{"t":"ack","seq":1,"x":"\ud83d\ude00"}"#, #"{"t":"ack","seq":1,"x":"\q"}"#,
        #"{"t":"ack","seq":1,"x":[[[[[[1]]]]]]}"#, #"[[[[[[{"t":"ack"}]]]]]]"#,
        #"{"t":"hello","v":1,"token":"T","ack":-5,"auth":"a"}"#, #"{"t":"hello","v":1.0}"#,
        #"{"t":"hello","v":2}"#, #"{"t":"hello","v":1,"token":3}"#, #"[{"t":"ack","seq":1},{"t":"hello","v":1}]"#,
        #"{"t":"ack","seq":9223372036854775807}"#, #"{"t":"ack","seq":9223372036854775808}"#,
        #"{"t":"ack","seq":1,"x":tru}"#, #"{"t":"ack","seq":1,"x":"unterminated}"#,
        // Fields read without the parser (strings without escapes, integers up to 18 digits)
        // and the ones next to them that still go through it.
        #"{"t":"cancel","id":-3}"#, #"{"t":"ack","seq":-0}"#, #"{"t":"ack","seq":0}"#,
        #"{"t":"ack","seq":999999999999999999}"#, #"{"t":"ack","seq":1000000000000000000}"#,
        #"{"t":"ack","seq":-999999999999999999}"#, #"{"t":"ack","seq":-9223372036854775808}"#,
        #"{"t":"ack","seq":1.5}"#, #"{"t":"ack","seq":2E0}"#, #"{ "t" : "ack" , "seq" : 7 }"#,
        #"{"t":"","id":1}"#, #"{"t":"call","id":1,"method":""}"#, #"{"t":"call","id":1,"method":"café.x"}"#,
        #"{"t":"call","id":1,"method":"café.x","traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}"#,
        #"{"t":"call","id":1,"method":"m","traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}"#,
        #"{"t":"hello","v":1,"token":"T","auth":"a","ack":2}"#, #"{"t":"call","id":1,"method":"m","arg":{"data":1}}"#,
        // Strings with escapes in each string field: the scanner's flag sends them to the parser.
        #"{"t":"hello","v":1,"token":"T\"\\x","auth":"\u00e9\/a"}"#, #"{"t":"call","id":1,"method":"a\u002eb\n"}"#,
        #"{"t":"ack","seq":1,"x":"\\"}"#, #"{"t":"call","id":1,"method":"m","arg":"\"","traceparent":"\u0030"}"#,
        #"{"t":"ack","seq":3,"x":1,"xx":2,"xxx":3,"xxxx":4,"xxxxx":5,"xxxxxx":6,"xxxxxxxxxxx":7}"#,
        // Strings of the envelope read as their bytes (no escapes) or decoded (escapes).
        #"{"t":"call","id":1,"method":"m","arg":{ "data" : "é😀 x" , "_dscbstub" : "s" }}"#,
        #"{"t":"call","id":1,"method":"m","arg":{ "data":"a\"b", "_dscbstub":"s\u0031", "data":"" }}"#,
    ]

    static let tricky = general + fastLayout + nearFastLayout

    /// Calls in the layout ``CallFrameFastPath`` reads in one pass.
    static let fastLayout: [String] = [
        #"{"t":"call","id":1000000001,"method":"echo.syn","arg":{"data":"xxxxxxxxxxxxxxxx"}}"#,
        #"{"t":"call","id":7,"method":"a.b","arg":{"data":{"x":[1,2,{"y":null}]},"_dscbstub":"dscb1"}}"#,
        #"{"t":"call","id":7,"method":"a.b","arg":{"_dscbstub":"dscb1","data":[true,false,null,-1.5]}}"#,
        #"{"t":"call","id":7,"method":"a.b","arg":{"data":1,"data":2,"_dscbstub":5,"_dscbstub":null}}"#,
        #"{"t":"call","id":7,"method":"a.b","arg":{"d\u0061ta":"escaped key","_dscb\u0073tub":"dscb9"}}"#,
        #"{"t":"call","id":7,"method":"a.b","arg":{"data":"\u00e9\n","other":{"deep":[[[1]]]}}}"#,
        #"{"t":"call","id":7,"method":"a.b","arg":{}}"#, #"{"t":"call","id":7,"method":"a.b","arg":{"_dscbstub":7}}"#,
        #"{"t":"call","id":7,"method":"a.b","arg":{"data":"","_dscbstub":"dscb3"}}"#,
        #"{"t":"call","id":7,"method":"a.b","arg":{"data":"a\/b","_dscbstub":"dscb\u0033","x":"\\"}}"#,
        #"{"t":"call","id":7,"method":"a.b","arg":{"data":"plain","data":"\t","_dscbstub":"\\","_dscbstub":"ok"}}"#,
        #"{"t":"call","id":2,"method":"a.b","arg":"{\"data\":5,\"_dscbstub\":\"dscb2\"}"}"#,
        #"{"t":"call","id":2,"method":"a.b","arg":null}"#, #"{"t":"call","id":2,"method":"a.b","arg":[1]}"#,
        #"{"t":"call","id":2,"method":"","arg":5}"#, #"{"t":"call","id":2,"method":"café.ü","arg":{"data":"é😀"}}"#,
        #"{"t":"call","id":999999999999999999,"method":"m","arg":{"data":0}}"#,
        #"{"t":"call","id":3,"method":"m","arg":{"data":1},"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}"#,
        #"{"t":"call","id":3,"method":"m","arg":{"data":1},"traceparent":"not a trace"}"#,
        #"{"t":"call","id":3,"method":"m","arg":{"data":1},"traceparent":""}"#,
        #"{"t":"call","id":3,"method":"m","arg":{"data":[[[[[[1]]]]]]}}"#,
    ]

    /// Frames next to the fast layout: read by the general decoder (or refused by it).
    static let nearFastLayout: [String] = [
        #"{"t":"call","id":1000000000000000000,"method":"m","arg":{"data":0}}"#,
        #"{"t":"call","id":0,"method":"m","arg":1}"#, #"{"t":"call","id":01,"method":"m","arg":1}"#,
        #"{"t":"call","id":-1,"method":"m","arg":1}"#, #"{"t":"call","id":1.0,"method":"m","arg":1}"#,
        #"{"t":"call","id":1e1,"method":"m","arg":1}"#, #"{"t":"call","id":1,"method":"m\u0041","arg":1}"#,
        #"{"t":"call","id":1,"method":"m","arg":1} "#, #"{"t":"call","id":1,"method":"m","arg":1,"x":2}"#,
        #"{"t":"call","id":1,"method":"m","arg":{"data":1}"#, #"{"t":"call","id":1,"method":"m","arg":}"#,
        #"{"t":"call","id":1,"method":"m","arg":{"data":1}}}"#, #"{"t":"call","id":1,"method":"m","arg":{"data":tru}}"#,
        #"{"t":"call","id":1,"method":"m","arg":{"data":"\ud800"}}"#, "{\"t\":\"call\",\"id\":1,\"method\":\"m\u{1}\",\"arg\":1}",
        #"{"t":"call","id":1,"method":"m","arg":1,"traceparent":5}"#, #"{"t":"call","id":1,"method":"m","arg":1,"traceparent":"a"} "#,
        #"{"t":"call","id":1,"method":"m","arg":1,"t":"ack","seq":1}"#, #"{"t":"call","id":1,"method":"m"}"#,
        #"{"t":"call","id":1,"method":5,"arg":1}"#, #"{"t":"call","id":"1","method":"m","arg":1}"#,
    ]

    @Test("calls in the fast layout take the one-pass reading; frames next to it do not")
    func fastLayoutIsTaken() {
        for text in Self.fastLayout {
            #expect(CallFrameFastPath.call(in: Array(text.utf8), maxDepth: 128) != nil, "frame \(text)")
        }
        for text in Self.nearFastLayout {
            #expect(CallFrameFastPath.call(in: Array(text.utf8), maxDepth: 128) == nil, "frame \(text)")
        }
        // The depth limit is the frame's: nested past it, the general reading names the fault.
        #expect(CallFrameFastPath.call(in: Array(Self.fastLayout[1].utf8), maxDepth: 3) == nil)
        #expect(CallFrameFastPath.call(in: Array(Self.fastLayout[0].utf8), maxDepth: 1) == nil)
    }

    @Test("tricky frames decode as before, with and without a hello seen", arguments: tricky)
    func trickyFrames(text: String) {
        for helloSeen in [true, false] {
            for maxDepth in [3, 128] {
                expectSame(Array(text.utf8), helloSeen: helloSeen, maxDepth: maxDepth)
            }
        }
    }

    @Test("bytes that are not UTF-8 are refused as before, in keys, values and arg")
    func invalidUTF8() {
        let prefix = Array(#"{"t":"call","id":1,"method":"m","arg":{"data":""#.utf8)
        for bad: [UInt8] in [[0xC3], [0xED, 0xA0, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xC0, 0xAF], [0xE2, 0x82], [0xC3, 0xA9]] {
            expectSame(prefix + bad + Array(#""}}"#.utf8), helloSeen: true, maxDepth: 128)
            expectSame(Array(#"{""#.utf8) + bad + Array(#"":1,"t":"ack","seq":1}"#.utf8), helloSeen: true, maxDepth: 128)
            expectSame(prefix + bad + Array(#"\u0041"}}"#.utf8), helloSeen: true, maxDepth: 128)
        }
    }

    @Test("random mutations of valid frames decode as before")
    func mutations() {
        var rng = SplitMix(seed: 21)
        // The fast layout's frames twice (tricky has them too): their mutations are the near
        // misses the one-pass reading must leave to the general one.
        let seeds = (Self.tricky + Self.fastLayout).filter { !$0.isEmpty }.map { Array($0.utf8) }
        let alphabet = Array(#"{}[]":,\ tu0aexyz-1.9é"#.utf8) + [0xC3, 0x80, 0xFF]
        for _ in 0..<6_000 {
            var frame = seeds[Int(rng.next() % UInt64(seeds.count))]
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let at = Int(rng.next() % UInt64(frame.count + 1))
                switch rng.next() % 3 {
                case 0: frame.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: at)
                case 1: if at < frame.count { frame.remove(at: at) }
                default: if at < frame.count { frame[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))] }
                }
            }
            expectSame(frame, helloSeen: rng.next() % 2 == 0, maxDepth: rng.next() % 4 == 0 ? 2 : 128)
        }
    }

    @Test("sync HTTP bodies read without a tree give the request, or the refusal, the parser gave")
    func syncCallBodies() {
        var rng = SplitMix(seed: 4)
        let seeds = [
            #"{"method":"a.b","arg":{"data":[1,{"x":"é"}],"_dscbstub":"dscb1"}}"#, #"{"method":"m"}"#,
            #"{"arg":"{\"data\":1}","method":"m","method":"n"}"#, #"{"m\u0065thod":"x","arg":null}"#,
            #"{"method":5}"#, #"[{"method":"m"}]"#, #""x""#, #"{"method":"m","arg":[[[[1]]]]}"#,
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]":,\ tu0aexyz-1.9é"#.utf8) + [0xC3, 0x80, 0xFF]
        for round in 0..<3_000 {
            var body = seeds[round % seeds.count]
            if round >= seeds.count {
                let at = Int(rng.next() % UInt64(body.count + 1))
                switch rng.next() % 3 {
                case 0: body.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: at)
                case 1: if at < body.count { body.remove(at: at) }
                default: if at < body.count { body[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))] }
                }
            }
            let maxDepth = round % 5 == 0 ? 3 : 128
            let new = Result { () throws(ProtocolViolation) in try SyncCallRequest(body: body, afterHeader: nil, maxDepth: maxDepth) }
            let old = Result { () throws(ProtocolViolation) in try Self.referenceSyncCall(body, maxDepth: maxDepth) }
            let text = String(decoding: body, as: UTF8.self)
            switch (new, old) {
            case (.success(let a), .success(let b)):
                #expect(a == b, "body \(text)")
                let raw = Result { () throws(CallFailure) in try CallArgument(raw: a.rawArg, maxDepth: maxDepth) }
                let wire = Result { () throws(CallFailure) in try CallArgument(wire: b.arg, maxDepth: maxDepth) }
                #expect(String(describing: raw) == String(describing: wire), "arg of \(text)")
            case (.failure(let a), .failure(let b)):
                // The same sentence, but for which of two faults in one string is named first.
                #expect(a.reason.prefix(17) == b.reason.prefix(17), "body \(text): \(a) vs \(b)")
            default:
                Issue.record("body \(text): \(new) vs \(old)")
            }
        }
    }

    /// `SyncCallRequest(body:)` as it was: parse the whole body, then read its members.
    private static func referenceSyncCall(_ body: [UInt8], maxDepth: Int) throws(ProtocolViolation) -> SyncCallRequest {
        let value: JSONValue
        do {
            value = try JSONParser.parse(body, maxDepth: maxDepth)
        } catch {
            throw ProtocolViolation("body is not JSON: \(error)")
        }
        guard case .object(let members) = value else {
            throw ProtocolViolation("body must be a JSON object {\"method\": string, \"arg\": ...}")
        }
        guard case .string(let method)? = members["method"] else {
            throw ProtocolViolation("body needs a string \"method\"")
        }
        return SyncCallRequest(method: method, arg: members["arg"], after: 0, bodyBytes: body.count)
    }

    private func expectSame(_ frame: [UInt8], helloSeen: Bool, maxDepth: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let decoder = PageFrameDecoder(maxDepth: maxDepth)
        let new = Result { () throws(ProtocolViolation) in try decoder.decode(frame: frame, helloSeen: helloSeen) }
        let old = Result { () throws(ProtocolViolation) in try ReferenceDecoder(maxDepth: maxDepth).decode(frame, helloSeen: helloSeen) }
        let text = String(decoding: frame, as: UTF8.self)
        switch (new, old) {
        case (.success(let a), .success(let b)):
            #expect(a == b, "frame \(text)", sourceLocation: sourceLocation)
            for case (.call(let x), .call(let y)) in zip(a, b) {
                // As the call runs it: with the envelope the decoder noted, if any.
                let raw = Result { () throws(CallFailure) in try CallArgument(.raw(x.rawArg, envelope: x.envelope), maxDepth: maxDepth) }
                let wire = Result { () throws(CallFailure) in try CallArgument(wire: y.arg, maxDepth: maxDepth) }
                switch (raw, wire) {
                case (.success(let p), .success(let q)): #expect(p == q, "arg of \(text)", sourceLocation: sourceLocation)
                case (.failure(let p), .failure(let q)): #expect(p.kind == q.kind, "arg of \(text)", sourceLocation: sourceLocation)
                default: Issue.record("arg of \(text): \(raw) vs \(wire)", sourceLocation: sourceLocation)
                }
            }
            // The reference knows no traceparent; the general reading does: the one-pass
            // reading (``CallFrameFastPath``) must give the same trace and the same `arg` text.
            let general = Result { () throws(ProtocolViolation) in try decoder.decodeAnyLayout(frame: frame, helloSeen: helloSeen) }
            guard case .success(let g) = general, g.count == a.count else {
                Issue.record("frame \(text): the general reading gave \(general)", sourceLocation: sourceLocation)
                return
            }
            for case (.call(let x), .call(let y)) in zip(a, g) {
                #expect(x.trace == y.trace && x.rawArg == y.rawArg, "call of \(text)", sourceLocation: sourceLocation)
            }
        case (.failure(let a), .failure(let b)):
            #expect(a == b, "frame \(text)", sourceLocation: sourceLocation)
        default:
            Issue.record("frame \(text): \(new) vs \(old)", sourceLocation: sourceLocation)
        }
    }
}

/// The decoder as it was before it read frames without a tree: parse, then read fields.
private struct ReferenceDecoder {
    let maxDepth: Int

    func decode(_ bytes: [UInt8], helloSeen: Bool) throws(ProtocolViolation) -> [PageMessage] {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maxDepth: maxDepth)
        } catch .tooDeep(let limit) {
            throw ProtocolViolation("nesting deeper than \(limit) levels")
        } catch {
            throw ProtocolViolation("not JSON")
        }
        var messages: [PageMessage]
        switch value {
        case .object(let members):
            messages = [try Self.message(members)]
        case .array(let elements):
            messages = []
            for e in elements {
                guard case .object(let members) = e else { throw ProtocolViolation("batch element is not an object") }
                messages.append(try Self.message(members))
            }
        default:
            throw ProtocolViolation("frame is not an object or an array")
        }
        var sawHello = helloSeen
        for (index, m) in messages.enumerated() {
            if case .hello = m {
                if sawHello { throw ProtocolViolation("second hello") }
                if index != 0 { throw ProtocolViolation("expected hello") }
                sawHello = true
            } else if !sawHello {
                throw ProtocolViolation("expected hello")
            }
        }
        return messages
    }

    static func message(_ m: JSONObject) throws(ProtocolViolation) -> PageMessage {
        guard let t = m["t"] else { throw ProtocolViolation("missing t") }
        guard case .string(let type) = t else { throw ProtocolViolation("t is not a string") }
        switch type {
        case "call":
            guard let id = m["id"]?.integerValue, id >= 1 else { throw ProtocolViolation("call needs an integer id >= 1") }
            guard case .string(let method)? = m["method"] else { throw ProtocolViolation("call needs a string method") }
            return .call(.init(id: id, method: method, arg: m["arg"]))
        case "ack":
            guard let seq = m["seq"]?.integerValue else { throw ProtocolViolation("ack needs an integer seq") }
            return .ack(seq: seq)
        case "cancel":
            guard let id = m["id"]?.integerValue else { throw ProtocolViolation("cancel needs an integer id") }
            return .cancel(id: id)
        case "hello":
            guard let v = m["v"] else { throw ProtocolViolation("hello needs v") }
            guard let version = v.integerValue, version == 1 else { throw ProtocolViolation("unsupported version") }
            var hello = PageMessage.Hello(version: version)
            if let token = m["token"] {
                guard case .string(let s) = token else { throw ProtocolViolation("token is not a string") }
                hello.token = s
            }
            if let auth = m["auth"] {
                guard case .string(let s) = auth else { throw ProtocolViolation("auth is not a string") }
                hello.auth = s
            }
            if let ack = m["ack"] {
                guard let a = ack.integerValue else { throw ProtocolViolation("ack is not an integer") }
                hello.ack = max(0, a)
            }
            return .hello(hello)
        default:
            throw ProtocolViolation("unknown t \"\(type.prefix(32))\"")
        }
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import Testing

@Suite("JSON parser: nested objects and arrays keep their members and order")
struct JSONNestingTests {
    @Test(
        "objects inside arrays inside objects come back byte for byte",
        arguments: [
            #"{"a":{"b":[1,{"c":[2,3,{"d":{}}],"e":[]},4],"f":{"g":"h"}},"i":[[],[[]],[{"j":null}]]}"#,
            #"[{"t":"call","id":1,"method":"echo.syn","arg":{"data":{"x":[1,2,3]}}},{"t":"ack","seq":2}]"#,
            #"{"k":[{"a":1,"b":2},{"a":3,"b":4},{"a":5,"b":6}]}"#,
        ])
    func nested(text: String) throws {
        #expect(JSONWriter.string(try JSONParser.parse(text)) == text)
    }

    @Test("an object with many members keeps every one, in order")
    func manyMembers() throws {
        let members = (0..<40).map { "\"k\($0)\":[\($0),{\"n\":\($0)}]" }
        let text = "{" + members.joined(separator: ",") + "}"
        let value = try JSONParser.parse(text)
        #expect(JSONWriter.string(value) == text)
        #expect(value.objectValue?.keys.elementsEqual((0..<40).map { "k\($0)" }) == true)
        #expect(value["k39"] == [39, ["n": 39]])
    }

    @Test("a long array keeps every element, in order")
    func longArray() throws {
        let text = "[" + (0..<1_000).map { "[\($0)]" }.joined(separator: ",") + "]"
        let value = try JSONParser.parse(text)
        #expect(value.arrayValue?.count == 1_000)
        #expect(JSONWriter.string(value) == text)
    }

    @Test("a repeated key keeps its first position and its last value, at any depth")
    func repeatedKeysNested() throws {
        let value = try JSONParser.parse(#"{"o":{"a":1,"b":2,"a":3},"a":[{"x":1,"x":{"y":1,"y":2}}],"o":{"a":4,"b":5,"a":6}}"#)
        #expect(JSONWriter.string(value) == #"{"o":{"a":6,"b":5},"a":[{"x":{"y":2}}]}"#)
    }

    @Test(
        "an error deep inside nesting is reported at its byte",
        arguments: [
            (#"{"a":[{"b":[1,2,}]}]}"#, 16), (#"[{"a":1},{"a":}]"#, 14), (#"{"a":{"b":{"c":tru}}}"#, 15),
        ])
    func nestedErrors(text: String, offset: Int) {
        #expect(throws: JSONParseError.invalid(offset: offset, reason: text.contains("tru") ? "invalid literal" : "unexpected character")) {
            try JSONParser.parse(text)
        }
    }

    @Test("a string holding JSON with non-ASCII text parses as the call envelope")
    func stringEnvelope() throws {
        let argument = try CallArgument(wire: .string(#"{"data":{"msg":"héllo 😀","n":[1,2]},"_dscbstub":"dscb3"}"#))
        #expect(argument == CallArgument(data: ["msg": "héllo 😀", "n": [1, 2]], stub: "dscb3"))
    }
}

@Suite("Method names: non-ASCII names")
struct MethodNameUnicodeTests {
    @Test("non-ASCII letters are part of a name")
    func letters() {
        #expect(MethodName("ns.café").map { [$0.namespace, $0.name] } == ["ns", "café"])
        #expect(MethodName("数据.读取").map { [$0.namespace, $0.name] } == ["数据", "读取"])
    }

    @Test("Unicode whitespace outside ASCII is refused", arguments: ["a\u{0085}b", "a.\u{2028}", "\u{3000}a", "a\u{202F}.b", "ns.na\u{1680}me"])
    func whitespace(name: String) {
        #expect(MethodName(name) == nil)
    }

    @Test("ASCII control characters that are not whitespace are allowed, as before")
    func controls() {
        #expect(MethodName("a\u{1F}b")?.name == "a\u{1F}b")
    }
}

@Suite("JSON strings: UTF-8 is checked with and without escapes")
struct JSONStringUTF8Tests {
    /// `"` + bytes + `"`, optionally with an escape in front to take the escaped-string path.
    private func quoted(_ bytes: [UInt8], escaped: Bool) -> [UInt8] {
        [0x22] + (escaped ? Array(#"\n"#.utf8) : []) + bytes + [0x22]
    }

    @Test(
        "invalid sequences are refused",
        arguments: [
            [0xFF], [0xC3], [0xC3, 0x28], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xF0, 0x9F, 0x98], [0x61, 0x80, 0x62], [0xEF, 0xBF, 0xBD, 0xFF],
        ] as [[UInt8]])
    func invalid(bytes: [UInt8]) {
        for escaped in [false, true] {
            #expect(throws: JSONParseError.self) { try JSONParser.parse(quoted(bytes, escaped: escaped)) }
        }
    }

    @Test("runs between escapes are kept whole, whatever mixes with them")
    func escapesBetweenRuns() throws {
        let text = #""plain \"quoted\" é\u00e9 \ud83d\ude00😀\\back\/slash\n\t end""#
        #expect(try JSONParser.parse(text) == .string("plain \"quoted\" éé 😀😀\\back/slash\n\t end"))
        let long = String(repeating: #"abc\"déf"#, count: 500)
        #expect(try JSONParser.parse("\"" + long + "\"") == .string(String(repeating: "abc\"déf", count: 500)))
    }

    @Test(
        "valid multi-byte text comes back unchanged, replacement character included",
        arguments: [
            "é", "日本語", "😀 and 🇫🇷", "\u{FFFD}", "mixed ascii é 😀 end", "\u{10FFFF}",
        ])
    func valid(text: String) throws {
        #expect(try JSONParser.parse(quoted(Array(text.utf8), escaped: false)) == .string(text))
        #expect(try JSONParser.parse(quoted(Array(text.utf8), escaped: true)) == .string("\n" + text))
    }
}

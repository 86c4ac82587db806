// SPDX-License-Identifier: MIT
import DSBridge
import Testing

@Suite("JSON parser and writer")
struct JSONCodecTests {
    @Test(
        "values survive a round trip byte for byte",
        arguments: [
            "null", "true", "false", "0", "-12", "9007199254740993", "1.5", "-0.25", "1e+20", "\"\"", "\"a\\\"b\\\\c\\n\"",
            "[]", "{}", "[1,\"x\",null,{\"a\":[true]}]", "{\"b\":1,\"a\":2}", "\"\u{00e9}\u{1F600}\"",
        ])
    func roundTrip(text: String) throws {
        #expect(JSONWriter.string(try JSONParser.parse(text)) == text)
    }

    @Test("integers and other numbers stay apart")
    func numbers() throws {
        #expect(try JSONParser.parse("3") == .integer(3))
        #expect(try JSONParser.parse("3.0") == .number(3.0))
        #expect(try JSONParser.parse("-9223372036854775808") == .integer(.min))
        #expect(try JSONParser.parse("9223372036854775808") == .number(9_223_372_036_854_775_808))
        #expect(JSONValue.number(3.0).integerValue == 3)
        #expect(JSONValue.number(3.5).integerValue == nil)
        #expect(JSONWriter.string(.number(.infinity)) == "null")
    }

    @Test("integers print as Swift prints them, from Int64.min to Int64.max")
    func integersPrint() {
        var values: [Int64] = [.min, .min + 1, .max, .max - 1, 0, 9, 10, -1, -9, -10, 99, 100, 1_000_000_001]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -power, power / 2 + 7, -(power / 3)]
        }
        // Every number of up to four digits, odd and even counts of digits alike.
        values += Array(-10_000...10_000)
        for value in values {
            var w = JSONWriter(capacity: 0)
            w.write(integer: value)
            #expect(String(decoding: w.bytes, as: UTF8.self) == String(value))
        }
    }

    @Test("escapes decode, including surrogate pairs; control characters are escaped on output")
    func strings() throws {
        #expect(try JSONParser.parse("\"\\u00e9\\ud83d\\ude00\\/\\t\"") == .string("\u{e9}\u{1F600}/\t"))
        #expect(JSONWriter.string(.string("a\u{01}b\u{1f}")) == "\"a\\u0001b\\u001f\"")
    }

    @Test("whitespace around and inside is accepted")
    func whitespace() throws {
        #expect(try JSONParser.parse(" \n{ \"a\" : [ 1 , 2 ] }\t") == ["a": [1, 2]])
    }

    @Test("a repeated key keeps the last value")
    func duplicateKeys() throws {
        #expect(try JSONParser.parse("{\"a\":1,\"a\":2}") == ["a": 2])
    }

    @Test(
        "malformed input is an error, never a crash",
        arguments: [
            "", " ", "{", "}", "[1,]", "{\"a\"}", "{\"a\":}", "{a:1}", "01", "1.", ".5", "-", "+1", "1e", "tru", "nul",
            "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "[1 2]", "1 2", "\"a\u{01}\"", "NaN", "Infinity",
        ])
    func malformed(text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test("invalid UTF-8 inside a string is refused")
    func invalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test("nesting is limited: the top level counts as level 1")
    func depth() throws {
        let ok = String(repeating: "[", count: 128) + String(repeating: "]", count: 128)
        #expect(throws: Never.self) { try JSONParser.parse(ok, maxDepth: 128) }
        let deep = String(repeating: "[", count: 129) + String(repeating: "]", count: 129)
        #expect(throws: JSONParseError.tooDeep(limit: 128)) { try JSONParser.parse(deep, maxDepth: 128) }
        let huge = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.tooDeep(limit: 128)) { try JSONParser.parse(huge, maxDepth: 128) }
    }
}

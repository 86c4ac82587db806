// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridge

/// The one JSON grammar (``JSONScanner``) as every reader meets it: the parser builds values
/// from the scanner's tokens, so a text is refused by both or neither, with the same error
/// (offset and reason), and what the parser accepts has the value written here.
@Suite("JSON grammar: parser and scanner agree, error for error")
struct JSONGrammarTests {
    /// The scanner's verdict on `bytes`: skipped as one value with the parser's nesting rule.
    private static func scan(_ bytes: [UInt8], maxDepth: Int = 128) -> JSONParseError? {
        bytes.withUnsafeBufferPointer { buffer in
            var s = JSONScanner(buffer, maxDepth: maxDepth)
            do throws(JSONParseError) {
                s.skipWhitespace()
                try s.skipValue(depth: 0)
                try s.expectEnd()
                return nil
            } catch {
                return error
            }
        }
    }

    private static func parse(_ bytes: [UInt8], maxDepth: Int = 128) -> Result<JSONValue, JSONParseError> {
        bytes.withUnsafeBufferPointer { JSONParser.parse(buffer: $0, maxDepth: maxDepth) }
    }

    /// Checks `bytes` parse to `value` and the scanner accepts them.
    private static func accepts(_ bytes: [UInt8], _ value: JSONValue, maxDepth: Int = 128, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(parse(bytes, maxDepth: maxDepth) == .success(value), sourceLocation: sourceLocation)
        #expect(scan(bytes, maxDepth: maxDepth) == nil, sourceLocation: sourceLocation)
    }

    /// Checks both readers refuse `bytes` with exactly `error`.
    private static func refuses(_ bytes: [UInt8], _ error: JSONParseError, maxDepth: Int = 128, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(parse(bytes, maxDepth: maxDepth) == .failure(error), sourceLocation: sourceLocation)
        #expect(scan(bytes, maxDepth: maxDepth) == error, sourceLocation: sourceLocation)
    }

    private static func invalid(_ offset: Int, _ reason: String) -> JSONParseError { .invalid(offset: offset, reason: reason) }

    @Test("numbers: integers to 64 bits, others as doubles, and each way a number can be cut short")
    func numbers() {
        Self.accepts(Array("-0".utf8), .integer(0))
        Self.accepts(Array("123456789012345678".utf8), .integer(123_456_789_012_345_678))
        Self.accepts(Array("9223372036854775807".utf8), .integer(.max))
        Self.accepts(Array("-9223372036854775808".utf8), .integer(.min))
        Self.accepts(Array("-9223372036854775809".utf8), .number(-9_223_372_036_854_775_808))  // past Int64: a double (the nearest)
        Self.accepts(Array("1E2".utf8), .number(100))
        Self.accepts(Array("1e-2".utf8), .number(0.01))
        Self.accepts(Array("0.5e+1".utf8), .number(5))
        Self.accepts(Array("1e999".utf8), .number(.infinity))
        Self.accepts(Array("[0,-1]".utf8), [0, -1])
        Self.refuses(Array("-".utf8), Self.invalid(1, "unexpected end of input"))
        Self.refuses(Array("-a".utf8), Self.invalid(1, "invalid number"))
        Self.refuses(Array("1.".utf8), Self.invalid(2, "invalid number"))
        Self.refuses(Array("1.e1".utf8), Self.invalid(2, "invalid number"))
        Self.refuses(Array("1e+".utf8), Self.invalid(3, "invalid number"))
        Self.refuses(Array("01".utf8), Self.invalid(1, "unexpected data after the value"))
        Self.refuses(Array("-01".utf8), Self.invalid(2, "unexpected data after the value"))
        Self.refuses(Array("+1".utf8), Self.invalid(0, "unexpected character"))
        Self.refuses(Array(".5".utf8), Self.invalid(0, "unexpected character"))
    }

    @Test("escapes: each of the eight, \\u in either case, and where a bad one is reported")
    func escapes() {
        Self.accepts(Array(#""\"\\\/\b\f\n\r\t""#.utf8), .string("\"\\/\u{08}\u{0C}\n\r\t"))
        Self.accepts(Array(#""\u00e9\u00C9\u0041""#.utf8), .string("éÉA"))
        Self.accepts(Array(#""é\u00e9é""#.utf8), .string("ééé"))
        Self.accepts(Array(#"{"\u0061":"\n"}"#.utf8), ["a": "\n"])
        Self.refuses(Array(#""\x""#.utf8), Self.invalid(3, "invalid escape"))
        Self.refuses(Array(#""\u12G4""#.utf8), Self.invalid(5, "invalid \\u escape"))
        Self.refuses(Array(#""\u12""#.utf8), Self.invalid(3, "unexpected end of input"))
        Self.refuses(Array(#""\"#.utf8), Self.invalid(2, "unexpected end of input"))
        Self.refuses(Array(#""abc"#.utf8), Self.invalid(4, "unterminated string"))
        Self.refuses(Array("\"a\u{01}\"".utf8), Self.invalid(2, "control character in string"))
        Self.refuses(Array(#""a\"#.utf8) + [0x0A, 0x22], Self.invalid(4, "invalid escape"))
    }

    @Test("surrogates: a pair is one scalar; a high one alone, a low one alone or a high one before anything else is refused")
    func surrogates() {
        Self.accepts(Array(#""\ud83d\ude00""#.utf8), .string("\u{1F600}"))
        Self.accepts(Array(#""\uDBFF\uDFFF""#.utf8), .string("\u{10FFFF}"))
        Self.accepts(Array(#""\uD7FF\uE000""#.utf8), .string("\u{D7FF}\u{E000}"))
        Self.refuses(Array(#""\ud83d""#.utf8), Self.invalid(7, "lone surrogate in string"))
        Self.refuses(Array(#""\ud83dxxxxxx""#.utf8), Self.invalid(7, "lone surrogate in string"))
        Self.refuses(Array(#""\ud83d\u0041""#.utf8), Self.invalid(13, "lone surrogate in string"))
        Self.refuses(Array(#""\ud83d\ud83d""#.utf8), Self.invalid(13, "lone surrogate in string"))
        Self.refuses(Array(#""\ude00\ud83d""#.utf8), Self.invalid(7, "lone surrogate in string"))
        Self.refuses(Array(#""\ud83d\u00""#.utf8), Self.invalid(7, "lone surrogate in string"))
    }

    @Test("depth: exactly the limit is read, one level over is refused, for arrays and objects alike")
    func depthLimit() {
        for limit in [0, 1, 5, 128] {
            let arrays = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
            let over = "[" + arrays + "]"
            #expect(throws: Never.self) { try JSONParser.parse(arrays.isEmpty ? "1" : arrays, maxDepth: limit) }
            #expect(Self.scan(Array((arrays.isEmpty ? "1" : arrays).utf8), maxDepth: limit) == nil)
            Self.refuses(Array(over.utf8), .tooDeep(limit: limit), maxDepth: limit)
            let objects = String(repeating: #"{"a":"#, count: limit) + "1" + String(repeating: "}", count: limit)
            let objectsOver = String(repeating: #"{"a":"#, count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
            #expect(throws: Never.self) { try JSONParser.parse(objects, maxDepth: limit) }
            Self.refuses(Array(objectsOver.utf8), .tooDeep(limit: limit), maxDepth: limit)
        }
        // The limit is checked on entering, before anything inside is read.
        Self.refuses(Array("[[x".utf8), .tooDeep(limit: 1), maxDepth: 1)
        Self.refuses(Array("[x".utf8), Self.invalid(1, "unexpected character"), maxDepth: 1)
    }

    @Test("trailing bytes: whitespace only")
    func trailing() {
        Self.accepts(Array(" {} \r\n\t".utf8), [:])
        Self.refuses(Array("1 x".utf8), Self.invalid(2, "unexpected data after the value"))
        Self.refuses(Array("[]]".utf8), Self.invalid(2, "unexpected data after the value"))
        Self.refuses(Array("{}{}".utf8), Self.invalid(2, "unexpected data after the value"))
        Self.refuses(Array("null\u{0}".utf8), Self.invalid(4, "unexpected data after the value"))
        Self.refuses(Array("trux".utf8), Self.invalid(0, "invalid literal"))
        Self.refuses(Array("tru".utf8), Self.invalid(0, "unexpected end of input"))
        Self.refuses([0xEF, 0xBB, 0xBF] + Array("1".utf8), Self.invalid(0, "unexpected character"))
    }

    @Test("invalid UTF-8 in a string is refused at the string's first byte, once the string is otherwise read")
    func invalidUTF8() {
        let notUTF8 = Self.invalid(1, "string is not valid UTF-8")
        Self.refuses([0x22, 0xC3, 0x28, 0x22], notUTF8)  // a lead byte without its continuation
        Self.refuses([0x22, 0xC0, 0x80, 0x22], notUTF8)  // overlong
        Self.refuses([0x22, 0xED, 0xA0, 0x80, 0x22], notUTF8)  // a surrogate, encoded
        Self.refuses([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], notUTF8)  // above U+10FFFF
        Self.refuses([0x22, 0xE2, 0x82, 0x22], notUTF8)  // cut short by the quote
        Self.refuses([0x22, 0x80, 0x22], notUTF8)  // a continuation byte first
        Self.refuses([0x22, 0xC3, 0x5C, 0x6E, 0xA9, 0x22], notUTF8)  // split by an escape
        Self.refuses([0x22, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0xFF, 0x22], notUTF8)  // past the 8-byte stride
        Self.refuses([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], Self.invalid(2, "string is not valid UTF-8"))  // a member name
        // Errors in reading order: the string's other faults come first.
        Self.refuses([0x22, 0xFF, 0x5C, 0x78, 0x22], Self.invalid(4, "invalid escape"))
        Self.refuses([0x22, 0xFF, 0x01, 0x22], Self.invalid(2, "control character in string"))
        Self.refuses([0x22, 0xFF], Self.invalid(2, "unterminated string"))
        // Outside a string a byte above 0x7F is no value.
        Self.refuses([0x5B, 0xC3, 0xA9, 0x5D], Self.invalid(1, "unexpected character"))
        Self.accepts([0x22, 0xC3, 0xA9, 0xF0, 0x9F, 0x98, 0x80, 0x22], .string("é😀"))
    }

    @Test("structure: each place a container can go wrong, reported where reading stopped")
    func structure() {
        Self.refuses(Array("".utf8), Self.invalid(0, "unexpected end of input"))
        Self.refuses(Array("[1,]".utf8), Self.invalid(3, "unexpected character"))
        Self.refuses(Array("[1 2]".utf8), Self.invalid(3, "expected ',' or ']'"))
        Self.refuses(Array("[1".utf8), Self.invalid(2, "unexpected end of input"))
        Self.refuses(Array(#"{"a" 1}"#.utf8), Self.invalid(5, "expected ':'"))
        Self.refuses(Array(#"{"a":1 "b":2}"#.utf8), Self.invalid(7, "expected ',' or '}'"))
        Self.refuses(Array(#"{"a":1,}"#.utf8), Self.invalid(7, "expected a member name"))
        Self.refuses(Array("{a:1}".utf8), Self.invalid(1, "expected a member name"))
        Self.refuses(Array(#"{"a":}"#.utf8), Self.invalid(5, "unexpected character"))
        Self.accepts(Array(#"{"a":1,"b":[],"c":{},"a":2}"#.utf8), ["a": 2, "b": [], "c": [:]])
    }
}

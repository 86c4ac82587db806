// SPDX-License-Identifier: MIT

/// Strings: the runs of plain bytes (``JSONStringRun``), escapes with their surrogate
/// rules, and UTF-8.
extension JSONScanner {
    /// A string as read: the bytes between its quotes, whether any is an escape, and whether
    /// all are ASCII (the text is the bytes when there is no escape; checked as UTF-8).
    struct StringToken {
        let start: Int
        let end: Int
        let hasEscapes: Bool
        let isASCII: Bool
    }

    /// Reads a string (at its opening quote), checking escapes and UTF-8; once there is an
    /// escape, `sink` gets the text piece by piece.
    ///
    /// Errors come in reading order, and invalid UTF-8 only at the closing quote (reported
    /// at the string's first byte): a string that is also unterminated or holds a bad
    /// escape or a control byte fails for that. Escapes decode to whole scalars, so
    /// checking the raw runs between them is checking the decoded text.
    @inline(__always)
    mutating func readString<Sink: JSONStringSink & ~Copyable>(into sink: inout Sink) throws(JSONParseError) -> StringToken {
        pos += 1  // opening quote
        let start = pos
        var hasEscapes = false
        var isASCII = true
        var isUTF8 = true
        while true {
            let runStart = pos
            let (end, sawNonASCII) = JSONStringRun.plainEnd(input, from: pos)
            pos = end
            if sawNonASCII {
                isASCII = false
                if isUTF8 { isUTF8 = Self.isUTF8(UnsafeBufferPointer(rebasing: input[runStart..<pos])) }
            }
            guard pos < input.count else { throw fail("unterminated string") }
            let c = input[pos]
            if c == UInt8(ascii: "\"") {
                guard isUTF8 else { throw .invalid(offset: start, reason: "string is not valid UTF-8") }
                if hasEscapes, runStart < pos { sink.plain(runStart..<pos, of: input) }
                pos += 1
                return StringToken(start: start, end: pos - 1, hasEscapes: hasEscapes, isASCII: isASCII)
            }
            if c < 0x20 { throw fail("control character in string") }
            if runStart < pos { sink.plain(runStart..<pos, of: input) }
            hasEscapes = true
            let scalar = try readEscape()
            if scalar.value >= 0x80 { isASCII = false }
            sink.escaped(scalar)
        }
    }

    /// Reads a string (at its opening quote), checking escapes and UTF-8.
    mutating func readString() throws(JSONParseError) -> StringToken {
        var skipped = JSONSkippedString()
        return try readString(into: &skipped)
    }

    /// Whether `bytes` are UTF-8.
    private static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        do {
            _ = try UTF8Span(validating: bytes.span)
            return true
        } catch {
            return false
        }
    }

    /// Reads one escape (at its backslash), with the surrogate rules: a high surrogate must
    /// be followed by an escaped low one, and a low one alone is refused.
    private mutating func readEscape() throws(JSONParseError) -> Unicode.Scalar {
        pos += 1  // the backslash
        guard pos < input.count else { throw fail("unexpected end of input") }
        let e = input[pos]
        pos += 1
        switch e {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            var scalar = try readHex4()
            if scalar >= 0xD800 && scalar < 0xDC00 {
                guard input.count - pos >= 6, input[pos] == UInt8(ascii: "\\"), input[pos + 1] == UInt8(ascii: "u")
                else { throw fail("lone surrogate in string") }
                pos += 2
                let low = try readHex4()
                guard low >= 0xDC00 && low < 0xE000 else { throw fail("lone surrogate in string") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar < 0xE000 {
                throw fail("lone surrogate in string")
            }
            guard let u = Unicode.Scalar(scalar) else { throw fail("invalid escape") }
            return u
        default:
            throw fail("invalid escape")
        }
    }

    private mutating func readHex4() throws(JSONParseError) -> UInt32 {
        guard input.count - pos >= 4 else { throw fail("unexpected end of input") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = input[pos]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw fail("invalid \\u escape")
            }
            v = v << 4 | d
            pos += 1
        }
        return v
    }

    /// A member's name as read, for a reader to compare with the names it looks for.
    struct MemberName {
        let token: StringToken
        let input: UnsafeBufferPointer<UInt8>

        /// The name's text (escapes decoded).
        var decoded: String? {
            if token.hasEscapes { return JSONScanner.decoded(token, in: input) }
            return String(decoding: UnsafeBufferPointer(rebasing: input[token.start..<token.end]), as: UTF8.self)
        }

        /// The length of the name's text in UTF-8 (escapes decoded; -1 for one that does not decode).
        var length: Int {
            if token.hasEscapes { return decoded?.utf8.count ?? -1 }
            return token.end - token.start
        }

        /// Whether the name is exactly `text` (escapes decoded).
        func `is`(_ text: StaticString) -> Bool {
            if !token.hasEscapes {
                let n = text.utf8CodeUnitCount
                guard token.end - token.start == n else { return false }
                let p = text.utf8Start
                for i in 0..<n where input[token.start + i] != p[i] { return false }
                return true
            }
            return JSONScanner.decoded(token, in: input)?.utf8.elementsEqual(
                UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) ?? false
        }
    }

    /// The text of a string read by ``readString()`` from `input`.
    static func decoded(_ token: StringToken, in input: UnsafeBufferPointer<UInt8>) -> String? {
        let quoted = UnsafeBufferPointer(rebasing: input[(token.start - 1)..<(token.end + 1)])
        guard case .success(.string(let s)) = JSONParser.parse(buffer: quoted, maxDepth: 1) else { return nil }
        return s
    }
}

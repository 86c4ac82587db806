// SPDX-License-Identifier: MIT

/// A pass over JSON text that checks it exactly as ``JSONParser`` does (same grammar, same
/// nesting rule, same first error in reading order) but builds nothing: values are skipped,
/// and a caller that wants one takes its byte range. The page-frame decoder reads a frame's
/// envelope with it, so a call's `arg` stays bytes until the method needs it.
///
/// Every failure is a ``JSONParseError``; nothing traps on input.
struct JSONScanner: ~Copyable {
    let input: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    /// The next byte to read.
    var pos = 0

    init(_ input: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.input = input
        self.maxDepth = maxDepth
    }

    /// A string as read: the bytes between its quotes, and whether any is an escape.
    struct StringToken {
        let start: Int
        let end: Int
        let hasEscapes: Bool
    }

    func fail(_ reason: String) -> JSONParseError { .invalid(offset: pos, reason: reason) }

    var isAtEnd: Bool { pos >= input.count }

    /// The byte at `pos`, or `nil` at the end.
    var peek: UInt8? { pos < input.count ? input[pos] : nil }

    mutating func skipWhitespace() {
        while pos < input.count {
            switch input[pos] {
            case 0x20, 0x0A, 0x0D, 0x09: pos += 1
            default: return
            }
        }
    }

    /// Fails unless only whitespace is left.
    mutating func expectEnd() throws(JSONParseError) {
        skipWhitespace()
        if pos != input.count { throw fail("unexpected data after the value") }
    }

    /// Skips one value that lies inside containers `depth` deep (0 at the top level).
    mutating func skipValue(depth: Int) throws(JSONParseError) {
        guard pos < input.count else { throw fail("unexpected end of input") }
        switch input[pos] {
        case UInt8(ascii: "{"):
            if try enterObject(depth: depth + 1) {
                repeat {
                    _ = try readKey()
                    try skipValue(depth: depth + 1)
                } while try nextMember(closing: UInt8(ascii: "}"))
            }
        case UInt8(ascii: "["):
            if try enterArray(depth: depth + 1) {
                repeat {
                    try skipValue(depth: depth + 1)
                } while try nextMember(closing: UInt8(ascii: "]"))
            }
        case UInt8(ascii: "\""): _ = try readString()
        case UInt8(ascii: "t"): try expect("true")
        case UInt8(ascii: "f"): try expect("false")
        case UInt8(ascii: "n"): try expect("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber()
        default: throw fail("unexpected character")
        }
    }

    /// Steps into the object at `pos` (its level is `depth`). Returns whether it has
    /// members; if so, read each with ``readKey()``, a value, then ``nextMember(closing:)``.
    mutating func enterObject(depth: Int) throws(JSONParseError) -> Bool {
        try enter(depth: depth, closing: UInt8(ascii: "}"))
    }

    /// Steps into the array at `pos` (its level is `depth`). Returns whether it has
    /// elements; if so, read each value, then ``nextMember(closing:)``.
    mutating func enterArray(depth: Int) throws(JSONParseError) -> Bool {
        try enter(depth: depth, closing: UInt8(ascii: "]"))
    }

    private mutating func enter(depth: Int, closing: UInt8) throws(JSONParseError) -> Bool {
        if depth > maxDepth { throw .tooDeep(limit: maxDepth) }
        pos += 1
        skipWhitespace()
        if pos < input.count, input[pos] == closing {
            pos += 1
            return false
        }
        skipWhitespace()
        return true
    }

    /// Reads a member name and its `:`; leaves `pos` at the value.
    mutating func readKey() throws(JSONParseError) -> StringToken {
        skipWhitespace()
        guard pos < input.count, input[pos] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
        let key = try readString()
        skipWhitespace()
        guard pos < input.count, input[pos] == UInt8(ascii: ":") else { throw fail("expected ':'") }
        pos += 1
        skipWhitespace()
        return key
    }

    /// After a member or element: `true` at a `,` (another follows), `false` at the
    /// container's end.
    mutating func nextMember(closing: UInt8) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard pos < input.count else { throw fail("unexpected end of input") }
        if input[pos] == UInt8(ascii: ",") {
            pos += 1
            skipWhitespace()
            return true
        }
        if input[pos] == closing {
            pos += 1
            return false
        }
        throw fail(closing == UInt8(ascii: "}") ? "expected ',' or '}'" : "expected ',' or ']'")
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

    /// Reads the object at `pos` (its level is `depth`), handing `member` each member's name
    /// and the range of its value, in order.
    mutating func members(depth: Int, _ member: (MemberName, Range<Int>) -> Void) throws(JSONParseError) {
        guard try enterObject(depth: depth) else { return }
        repeat {
            let key = try readKey()
            let start = pos
            try skipValue(depth: depth)
            member(MemberName(token: key, input: input), start..<pos)
        } while try nextMember(closing: UInt8(ascii: "}"))
    }

    /// The text of a string read by ``readString()`` from `input`.
    static func decoded(_ token: StringToken, in input: UnsafeBufferPointer<UInt8>) -> String? {
        let quoted = UnsafeBufferPointer(rebasing: input[(token.start - 1)..<(token.end + 1)])
        guard case .success(.string(let s)) = JSONParser.parse(buffer: quoted, maxDepth: 1) else { return nil }
        return s
    }

    /// Reads a string (at its opening quote), checking escapes and UTF-8 as the parser does.
    mutating func readString() throws(JSONParseError) -> StringToken {
        pos += 1  // opening quote
        let start = pos
        var hasEscapes = false
        while true {
            // Escapes decode to whole scalars, so checking the raw runs between them is the
            // same as checking the decoded text.
            let runStart = pos
            let (end, sawNonASCII) = JSONStringRun.plainEnd(input, from: pos)
            pos = end
            if sawNonASCII { try checkUTF8(runStart, stringStart: start) }
            guard pos < input.count else { throw fail("unterminated string") }
            let c = input[pos]
            if c == UInt8(ascii: "\"") {
                let token = StringToken(start: start, end: pos, hasEscapes: hasEscapes)
                pos += 1
                return token
            }
            if c < 0x20 { throw fail("control character in string") }
            hasEscapes = true
            try skipEscape()
        }
    }

    /// Checks the raw bytes from `runStart` to `pos` are UTF-8.
    private func checkUTF8(_ runStart: Int, stringStart: Int) throws(JSONParseError) {
        let run = UnsafeBufferPointer(rebasing: input[runStart..<pos])
        do {
            _ = try UTF8Span(validating: run.span)
        } catch {
            throw .invalid(offset: stringStart, reason: "string is not valid UTF-8")
        }
    }

    /// Skips one escape (at its backslash), with the parser's surrogate rules.
    private mutating func skipEscape() throws(JSONParseError) {
        pos += 1  // the backslash
        guard pos < input.count else { throw fail("unexpected end of input") }
        let e = input[pos]
        pos += 1
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return
        case UInt8(ascii: "u"):
            let scalar = try readHex4()
            if scalar >= 0xD800 && scalar < 0xDC00 {
                guard input.count - pos >= 6, input[pos] == UInt8(ascii: "\\"), input[pos + 1] == UInt8(ascii: "u")
                else { throw fail("lone surrogate in string") }
                pos += 2
                let low = try readHex4()
                guard low >= 0xDC00 && low < 0xE000 else { throw fail("lone surrogate in string") }
            } else if scalar >= 0xDC00 && scalar < 0xE000 {
                throw fail("lone surrogate in string")
            }
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

    private mutating func expect(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        guard input.count - pos >= n else { throw fail("unexpected end of input") }
        let p = word.utf8Start
        for i in 0..<n where input[pos + i] != p[i] { throw fail("invalid literal") }
        pos += n
    }

    private mutating func skipNumber() throws(JSONParseError) {
        if input[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < input.count else { throw fail("unexpected end of input") }
        if input[pos] == UInt8(ascii: "0") {
            pos += 1
        } else if isDigit(input[pos]) {
            while pos < input.count, isDigit(input[pos]) { pos += 1 }
        } else {
            throw fail("invalid number")
        }
        if pos < input.count, input[pos] == UInt8(ascii: ".") {
            pos += 1
            guard pos < input.count, isDigit(input[pos]) else { throw fail("invalid number") }
            while pos < input.count, isDigit(input[pos]) { pos += 1 }
        }
        if pos < input.count, input[pos] == UInt8(ascii: "e") || input[pos] == UInt8(ascii: "E") {
            pos += 1
            if pos < input.count, input[pos] == UInt8(ascii: "+") || input[pos] == UInt8(ascii: "-") { pos += 1 }
            guard pos < input.count, isDigit(input[pos]) else { throw fail("invalid number") }
            while pos < input.count, isDigit(input[pos]) { pos += 1 }
        }
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
}

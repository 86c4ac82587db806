// SPDX-License-Identifier: MIT

/// The one reading of JSON's grammar (RFC 8259, strict) in dsbridged: a pass over UTF-8 text
/// that checks it token by token and builds nothing. ``JSONParser`` builds values from its
/// tokens; readers that want only some fields (the page-frame decoder, sync call bodies, a
/// call's envelope, ``JSONObjectReader``) skip the rest and keep byte ranges, so a call's
/// `arg` stays bytes until the method needs it. Every reader therefore refuses the same texts
/// with the same first error, in reading order.
///
/// Nesting: the top-level array or object is level 1; a container deeper than `maxDepth`
/// is ``JSONParseError/tooDeep(limit:)``. Every failure is a ``JSONParseError``; nothing
/// traps on input. Strings are read in JSONScanner+String.swift.
struct JSONScanner: ~Copyable {
    let input: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    /// The next byte to read.
    var pos = 0

    init(_ input: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.input = input
        self.maxDepth = maxDepth
    }

    /// What the value at `pos` is, from its first byte.
    enum ValueStart {
        /// At `{`: read it with ``enterObject(depth:)``.
        case object
        /// At `[`: read it with ``enterArray(depth:)``.
        case array
        /// At `"`: read it with ``readString()``.
        case string
        /// At `-` or a digit: read it with ``readNumber()``.
        case number
        /// `true`, already read.
        case `true`
        /// `false`, already read.
        case `false`
        /// `null`, already read.
        case null
    }

    /// A number as read: its bytes, and whether it has neither fraction nor exponent.
    struct NumberToken {
        let range: Range<Int>
        let isIntegral: Bool
    }

    func fail(_ reason: String) -> JSONParseError { .invalid(offset: pos, reason: reason) }

    /// The byte at `pos`, or `nil` at the end.
    var peek: UInt8? { pos < input.count ? input[pos] : nil }

    @inline(__always)
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

    /// Starts the value at `pos`: a literal is read whole, anything else is only named.
    @inline(__always)
    mutating func startValue() throws(JSONParseError) -> ValueStart {
        guard pos < input.count else { throw fail("unexpected end of input") }
        switch input[pos] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"):
            try expect("true")
            return .true
        case UInt8(ascii: "f"):
            try expect("false")
            return .false
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw fail("unexpected character")
        }
    }

    /// Skips one value that lies inside containers `depth` deep (0 at the top level).
    mutating func skipValue(depth: Int) throws(JSONParseError) {
        switch try startValue() {
        case .object:
            if try enterObject(depth: depth + 1) {
                repeat {
                    _ = try readKey()
                    try skipValue(depth: depth + 1)
                } while try nextMember(closing: UInt8(ascii: "}"))
            }
        case .array:
            if try enterArray(depth: depth + 1) {
                repeat {
                    try skipValue(depth: depth + 1)
                } while try nextMember(closing: UInt8(ascii: "]"))
            }
        case .string: _ = try readString()
        case .number: _ = try readNumber()
        case .true, .false, .null: return
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
        return true
    }

    /// Reads a member name and its `:` (the name's text to `sink`); leaves `pos` at the value.
    @inline(__always)
    mutating func readKey<Sink: JSONStringSink & ~Copyable>(into sink: inout Sink) throws(JSONParseError) -> StringToken {
        skipWhitespace()
        guard pos < input.count, input[pos] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
        let key = try readString(into: &sink)
        skipWhitespace()
        guard pos < input.count, input[pos] == UInt8(ascii: ":") else { throw fail("expected ':'") }
        pos += 1
        skipWhitespace()
        return key
    }

    /// Reads a member name and its `:`; leaves `pos` at the value.
    mutating func readKey() throws(JSONParseError) -> StringToken {
        var skipped = JSONSkippedString()
        return try readKey(into: &skipped)
    }

    /// After a member or element: `true` at a `,` (another follows), `false` at the
    /// container's end.
    @inline(__always)
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

    /// A member's value as ``members(depth:_:)`` read it.
    struct MemberValue {
        /// The value's bytes (a string's with its quotes).
        let range: Range<Int>
        /// The value is a string with at least one escape: its text is not its bytes.
        let hasEscapes: Bool
        /// The value is a string.
        let isString: Bool

        /// The value is a string without escapes: its text is the bytes between its quotes.
        var isPlainString: Bool { isString && !hasEscapes }
    }

    /// Reads the object at `pos` (its level is `depth`), handing `member` each member's name
    /// and its value, in order.
    mutating func members(depth: Int, _ member: (MemberName, MemberValue) -> Void) throws(JSONParseError) {
        guard try enterObject(depth: depth) else { return }
        repeat {
            let key = try readKey()
            let start = pos
            var hasEscapes = false
            let isString = peek == UInt8(ascii: "\"")
            if isString {
                hasEscapes = try readString().hasEscapes
            } else {
                try skipValue(depth: depth)
            }
            member(MemberName(token: key, input: input), MemberValue(range: start..<pos, hasEscapes: hasEscapes, isString: isString))
        } while try nextMember(closing: UInt8(ascii: "}"))
    }

    private mutating func expect(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        guard input.count - pos >= n else { throw fail("unexpected end of input") }
        let p = word.utf8Start
        for i in 0..<n where input[pos + i] != p[i] { throw fail("invalid literal") }
        pos += n
    }

    /// Reads the number at `pos` (at its `-` or first digit).
    @inline(__always)
    mutating func readNumber() throws(JSONParseError) -> NumberToken {
        let start = pos
        var integral = true
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
            integral = false
            pos += 1
            guard pos < input.count, isDigit(input[pos]) else { throw fail("invalid number") }
            while pos < input.count, isDigit(input[pos]) { pos += 1 }
        }
        if pos < input.count, input[pos] == UInt8(ascii: "e") || input[pos] == UInt8(ascii: "E") {
            integral = false
            pos += 1
            if pos < input.count, input[pos] == UInt8(ascii: "+") || input[pos] == UInt8(ascii: "-") { pos += 1 }
            guard pos < input.count, isDigit(input[pos]) else { throw fail("invalid number") }
            while pos < input.count, isDigit(input[pos]) { pos += 1 }
        }
        return NumberToken(range: start..<pos, isIntegral: integral)
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
}

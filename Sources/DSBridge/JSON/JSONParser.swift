// SPDX-License-Identifier: MIT

/// Why a JSON text was refused.
public enum JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not JSON; `offset` is the byte where reading stopped.
    case invalid(offset: Int, reason: String)
    /// Arrays and objects nest deeper than the allowed number of levels.
    case tooDeep(limit: Int)

    public var description: String {
        switch self {
        case .invalid(let offset, let reason): return "invalid JSON at byte \(offset): \(reason)"
        case .tooDeep(let limit): return "JSON nested deeper than \(limit) levels"
        }
    }
}

/// A strict RFC 8259 parser over UTF-8 bytes with a nesting limit. It never traps on
/// input: every failure is a `JSONParseError`.
public struct JSONParser {
    /// Parses exactly one JSON value (surrounding whitespace allowed).
    /// - Parameter maxDepth: the deepest allowed nesting; the top-level array or object is level 1.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 128) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { buf in
            parse(buffer: buf, maxDepth: maxDepth)
        }
        if let result { return try result.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { parse(buffer: $0, maxDepth: maxDepth) }.get()
    }

    /// Parses the UTF-8 of `text`.
    public static func parse(_ text: String, maxDepth: Int = 128) throws(JSONParseError) -> JSONValue {
        var text = text
        return try text.withUTF8 { parse(buffer: $0, maxDepth: maxDepth) }.get()
    }

    static func parse(buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int) -> Result<JSONValue, JSONParseError> {
        var p = JSONParser(input: buffer, maxDepth: maxDepth)
        do throws(JSONParseError) {
            p.skipWhitespace()
            let v = try p.readValue(depth: 0)
            p.skipWhitespace()
            if p.pos != buffer.count { throw p.fail("unexpected data after the value") }
            return .success(v)
        } catch {
            return .failure(error)
        }
    }

    private let input: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    private var pos = 0
    /// Members of the objects being read, innermost last: each object collects its members
    /// here and takes them out into storage of the exact size when it ends, so reading an
    /// object allocates its storage once instead of growing it member by member.
    private var pendingMembers: [(key: String, value: JSONValue)] = []
    /// Elements of the arrays being read, innermost last (the same scheme as `pendingMembers`).
    private var pendingElements: [JSONValue] = []

    private init(input: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.input = input
        self.maxDepth = maxDepth
    }

    private func fail(_ reason: String) -> JSONParseError { .invalid(offset: pos, reason: reason) }

    private mutating func skipWhitespace() {
        while pos < input.count {
            switch input[pos] {
            case 0x20, 0x0A, 0x0D, 0x09: pos += 1
            default: return
            }
        }
    }

    private mutating func readValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard pos < input.count else { throw fail("unexpected end of input") }
        switch input[pos] {
        case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
        case UInt8(ascii: "["): return try readArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw fail("unexpected character")
        }
    }

    private mutating func expect(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        guard input.count - pos >= n else { throw fail("unexpected end of input") }
        let p = word.utf8Start
        for i in 0..<n where input[pos + i] != p[i] { throw fail("invalid literal") }
        pos += n
    }

    private mutating func readObject(depth: Int) throws(JSONParseError) -> JSONValue {
        if depth > maxDepth { throw .tooDeep(limit: maxDepth) }
        pos += 1
        skipWhitespace()
        if pos < input.count, input[pos] == UInt8(ascii: "}") {
            pos += 1
            return .object(JSONObject())
        }
        if pendingMembers.capacity == 0 { pendingMembers.reserveCapacity(16) }
        let first = pendingMembers.count
        while true {
            skipWhitespace()
            guard pos < input.count, input[pos] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let key = try readString()
            skipWhitespace()
            guard pos < input.count, input[pos] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            pos += 1
            skipWhitespace()
            let value = try readValue(depth: depth)
            pendingMembers.append((key, value))
            skipWhitespace()
            guard pos < input.count else { throw fail("unexpected end of input") }
            if input[pos] == UInt8(ascii: ",") {
                pos += 1
                continue
            }
            if input[pos] == UInt8(ascii: "}") {
                pos += 1
                return .object(takeMembers(from: first))
            }
            throw fail("expected ',' or '}'")
        }
    }

    /// The members collected since `first`, as an object; a repeated key keeps its first
    /// position and its last value.
    private mutating func takeMembers(from first: Int) -> JSONObject {
        var members = JSONObject(minimumCapacity: pendingMembers.count - first)
        for i in first..<pendingMembers.count {
            members[pendingMembers[i].key] = pendingMembers[i].value
        }
        pendingMembers.removeSubrange(first...)
        return members
    }

    private mutating func readArray(depth: Int) throws(JSONParseError) -> JSONValue {
        if depth > maxDepth { throw .tooDeep(limit: maxDepth) }
        pos += 1
        skipWhitespace()
        if pos < input.count, input[pos] == UInt8(ascii: "]") {
            pos += 1
            return .array([])
        }
        if pendingElements.capacity == 0 { pendingElements.reserveCapacity(16) }
        let first = pendingElements.count
        while true {
            skipWhitespace()
            let element = try readValue(depth: depth)
            pendingElements.append(element)
            skipWhitespace()
            guard pos < input.count else { throw fail("unexpected end of input") }
            if input[pos] == UInt8(ascii: ",") {
                pos += 1
                continue
            }
            if input[pos] == UInt8(ascii: "]") {
                pos += 1
                let elements = Array(pendingElements[first...])
                pendingElements.removeSubrange(first...)
                return .array(elements)
            }
            throw fail("expected ',' or ']'")
        }
    }

    private mutating func readNumber() throws(JSONParseError) -> JSONValue {
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
        let slice = UnsafeBufferPointer(rebasing: input[start..<pos])
        if integral, let i = Self.int64(slice) { return .integer(i) }
        let text = String(decoding: slice, as: UTF8.self)
        guard let d = Double(text) else { throw fail("invalid number") }
        return .number(d)
    }

    private static func int64(_ digits: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        let negative = digits[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        if digits.count - i > 18 { return Int64(String(decoding: digits, as: UTF8.self)) }
        var value: Int64 = 0
        while i < digits.count {
            value = value * 10 + Int64(digits[i] &- UInt8(ascii: "0"))
            i += 1
        }
        return negative ? -value : value
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    private mutating func readString() throws(JSONParseError) -> String {
        pos += 1  // opening quote
        let start = pos
        // Fast path: no escapes.
        let (end, sawNonASCII) = JSONStringRun.plainEnd(input, from: pos)
        var isASCII = !sawNonASCII
        pos = end
        if pos < input.count {
            let c = input[pos]
            if c == UInt8(ascii: "\"") {
                let s = try Self.decodeUTF8(UnsafeBufferPointer(rebasing: input[start..<pos]), isASCII: isASCII, at: start)
                pos += 1
                return s
            }
            if c < 0x20 { throw fail("control character in string") }
        }
        // Escapes: copy the runs between them in bulk, decode each escape.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pos - start + 32)
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: input[start..<pos]))
        while pos < input.count {
            let runStart = pos
            let (runEnd, runNonASCII) = JSONStringRun.plainEnd(input, from: pos)
            pos = runEnd
            if runNonASCII { isASCII = false }
            if runStart < pos { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: input[runStart..<pos])) }
            guard pos < input.count else { break }
            let c = input[pos]
            if c == UInt8(ascii: "\"") {
                pos += 1
                return try bytes.withUnsafeBufferPointer { b throws(JSONParseError) in
                    try Self.decodeUTF8(b, isASCII: isASCII, at: start)
                }
            }
            if c < 0x20 { throw fail("control character in string") }
            pos += 1  // the backslash
            guard pos < input.count else { throw fail("unexpected end of input") }
            let e = input[pos]
            pos += 1
            switch e {
            case UInt8(ascii: "\""): bytes.append(0x22)
            case UInt8(ascii: "\\"): bytes.append(0x5C)
            case UInt8(ascii: "/"): bytes.append(0x2F)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try readHex4()
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    // A high surrogate must be followed by an escaped low surrogate.
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
                if scalar >= 0x80 { isASCII = false }
                UTF8.encode(u) { bytes.append($0) }
            default:
                throw fail("invalid escape")
            }
        }
        throw fail("unterminated string")
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

    /// The string of `bytes`, which must be valid UTF-8. Decoding repairs invalid sequences,
    /// so a string that reads back other than its bytes was invalid; ASCII needs no check.
    /// (`String(validating:as:)` does the same job through unspecialised generic code, at
    /// several times the cost.)
    private static func decodeUTF8(_ bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool, at offset: Int) throws(JSONParseError) -> String {
        var s = String(decoding: bytes, as: UTF8.self)
        if !isASCII, !s.withUTF8({ $0.elementsEqual(bytes) }) {
            throw .invalid(offset: offset, reason: "string is not valid UTF-8")
        }
        return s
    }
}

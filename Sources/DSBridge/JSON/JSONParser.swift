// SPDX-License-Identifier: MIT

/// A strict RFC 8259 parser over UTF-8 bytes with a nesting limit: it builds a ``JSONValue``
/// from ``JSONScanner``'s tokens, so it refuses exactly what the scanner refuses, with the
/// same error. It never traps on input: every failure is a ``JSONParseError``.
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
        var scanner = JSONScanner(buffer, maxDepth: maxDepth)
        do throws(JSONParseError) {
            scanner.skipWhitespace()
            let start = try scanner.startValue()
            let value: JSONValue
            if let scalar = try JSONTreeReader.scalar(start, &scanner) {
                value = scalar
            } else {
                // A container: only now the reader and its member stacks.
                var reader = JSONTreeReader()
                value = try start == .object ? reader.readObject(&scanner, depth: 1) : reader.readArray(&scanner, depth: 1)
            }
            try scanner.expectEnd()
            return .success(value)
        } catch {
            return .failure(error)
        }
    }
}

/// Builds values from a scanner's tokens, depth first.
private struct JSONTreeReader {
    /// Members of the objects being read, innermost last: each object collects its members
    /// here and takes them out into storage of the exact size when it ends, so reading an
    /// object allocates its storage once instead of growing it member by member.
    private var pendingMembers: [(key: String, value: JSONValue)] = []
    /// Elements of the arrays being read, innermost last (the same scheme as `pendingMembers`).
    private var pendingElements: [JSONValue] = []

    /// The value at the scanner, inside containers `depth` deep (0 at the top level).
    mutating func readValue(_ scanner: inout JSONScanner, depth: Int) throws(JSONParseError) -> JSONValue {
        let start = try scanner.startValue()
        if let scalar = try Self.scalar(start, &scanner) { return scalar }
        return try start == .object ? readObject(&scanner, depth: depth + 1) : readArray(&scanner, depth: depth + 1)
    }

    /// The value `start` names when it is no container (a literal, read already, a string or
    /// a number); `nil` for an object or an array, which the scanner is still at.
    @inline(__always)
    static func scalar(_ start: JSONScanner.ValueStart, _ scanner: inout JSONScanner) throws(JSONParseError) -> JSONValue? {
        switch start {
        case .object, .array: return nil
        case .string:
            var text = JSONStringBytes()
            let token = try scanner.readString(into: &text)
            return .string(text.string(token, in: scanner.input))
        case .number: return try readNumber(&scanner)
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .null: return .null
        }
    }

    /// Reads the object at the scanner (its level is `depth`).
    mutating func readObject(_ scanner: inout JSONScanner, depth: Int) throws(JSONParseError) -> JSONValue {
        guard try scanner.enterObject(depth: depth) else { return .object(JSONObject()) }
        if pendingMembers.capacity == 0 { pendingMembers.reserveCapacity(16) }
        let first = pendingMembers.count
        repeat {
            var text = JSONStringBytes()
            let token = try scanner.readKey(into: &text)
            let key = text.string(token, in: scanner.input)
            let value = try readValue(&scanner, depth: depth)
            pendingMembers.append((key, value))
        } while try scanner.nextMember(closing: UInt8(ascii: "}"))
        return .object(takeMembers(from: first))
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

    /// Reads the array at the scanner (its level is `depth`).
    mutating func readArray(_ scanner: inout JSONScanner, depth: Int) throws(JSONParseError) -> JSONValue {
        guard try scanner.enterArray(depth: depth) else { return .array([]) }
        if pendingElements.capacity == 0 { pendingElements.reserveCapacity(16) }
        let first = pendingElements.count
        repeat {
            let element = try readValue(&scanner, depth: depth)
            pendingElements.append(element)
        } while try scanner.nextMember(closing: UInt8(ascii: "]"))
        let elements = Array(pendingElements[first...])
        pendingElements.removeSubrange(first...)
        return .array(elements)
    }

    /// An integer when the number has no fraction or exponent and fits 64 bits, else a double.
    private static func readNumber(_ scanner: inout JSONScanner) throws(JSONParseError) -> JSONValue {
        let token = try scanner.readNumber()
        let slice = UnsafeBufferPointer(rebasing: scanner.input[token.range])
        if token.isIntegral, let i = int64(slice) { return .integer(i) }
        guard let d = Double(String(decoding: slice, as: UTF8.self)) else { throw scanner.fail("invalid number") }
        return .number(d)
    }

    /// The value of an integer's digits (optionally after `-`), `nil` when it does not fit.
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
}

/// An escaped string's text as the scanner hands it over. A string without escapes is its
/// bytes: the sink then holds no array at all (`nil` costs no release when it goes).
private struct JSONStringBytes: JSONStringSink {
    private var bytes: [UInt8]?

    mutating func plain(_ range: Range<Int>, of input: UnsafeBufferPointer<UInt8>) {
        var b = bytes.take() ?? Self.buffer(capacity: range.count + 32)
        b.append(contentsOf: UnsafeBufferPointer(rebasing: input[range]))
        bytes = b
    }

    mutating func escaped(_ scalar: Unicode.Scalar) {
        var b = bytes.take() ?? Self.buffer(capacity: 32)
        if scalar.isASCII {
            b.append(UInt8(truncatingIfNeeded: scalar.value))
        } else {
            UTF8.encode(scalar) { b.append($0) }
        }
        bytes = b
    }

    private static func buffer(capacity: Int) -> [UInt8] {
        var b: [UInt8] = []
        b.reserveCapacity(capacity)
        return b
    }

    /// The text of the string `token` of `input` (checked as UTF-8 by the scanner).
    func string(_ token: JSONScanner.StringToken, in input: UnsafeBufferPointer<UInt8>) -> String {
        if token.hasEscapes, let bytes { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: UnsafeBufferPointer(rebasing: input[token.start..<token.end]), as: UTF8.self)
    }
}

// SPDX-License-Identifier: MIT

/// Writes compact JSON text as UTF-8 bytes. Strings are escaped as RFC 8259 requires;
/// non-finite numbers (which JSON cannot carry) are written as `null`.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 128) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The JSON text of `value`.
    public static func string(_ value: JSONValue) -> String {
        var w = JSONWriter()
        w.write(value)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// The UTF-8 JSON bytes of `value`.
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var w = JSONWriter()
        w.write(value)
        return w.bytes
    }

    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let b): raw(b ? "true" : "false")
        case .integer(let i): write(integer: i)
        case .number(let d): write(number: d)
        case .string(let s): write(string: s)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            elements.withUnsafeBufferPointer { elements in  // read in place, without copies
                for i in elements.indices {
                    if i > 0 { bytes.append(UInt8(ascii: ",")) }
                    write(elements[i])
                }
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            let keys = members.keys.elements
            members.values.elements.withUnsafeBufferPointer { values in  // read in place, without copies
                for i in values.indices {
                    if i > 0 { bytes.append(UInt8(ascii: ",")) }
                    write(string: keys[i])
                    bytes.append(UInt8(ascii: ":"))
                    write(values[i])
                }
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends bytes that are already valid JSON (a trusted fragment such as `"t":`).
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends already-encoded JSON bytes verbatim.
    public mutating func raw(bytes other: [UInt8]) {
        bytes.append(contentsOf: other)
    }

    /// Appends the text of a checked JSON value verbatim.
    public mutating func raw(_ value: RawJSON) {
        bytes.append(contentsOf: value.bytes)
    }

    /// About how many bytes `write(value)` appends, computed without writing: exact for
    /// `null`, booleans, integers, arrays and objects of them and strings without characters
    /// to escape; other numbers count as 24 bytes (the longest a Double prints), escapes as
    /// nothing. Used to size the output once instead of growing it.
    public static func estimatedSize(of value: JSONValue) -> Int {
        switch value {
        case .null: return 4
        case .bool(let b): return b ? 4 : 5
        case .integer(let i): return digitCount(i)
        case .number: return 24
        case .string(let s): return s.utf8.count + 2
        case .array(let elements):
            return max(elements.count + 1, 2) + estimatedSize(of: elements)  // brackets and commas
        case .object(let members):
            var size = max(2 * members.count + 1, 2)  // braces, colons and commas
            for k in members.keys { size += k.utf8.count + 2 }
            return size + estimatedSize(of: members.values.elements)
        }
    }

    /// The sum of the estimates of `values`, read in place (no copies of the elements).
    private static func estimatedSize(of values: [JSONValue]) -> Int {
        values.withUnsafeBufferPointer { buffer in
            var size = 0
            for i in buffer.indices { size += estimatedSize(of: buffer[i]) }
            return size
        }
    }

    /// The characters of `integer` in decimal, its sign included.
    static func digitCount(_ integer: Int64) -> Int {
        var count = integer < 0 ? 2 : 1
        var magnitude = integer.magnitude
        while magnitude >= 10 {
            magnitude /= 10
            count += 1
        }
        return count
    }

    public mutating func write(integer: Int64) {
        if integer >= 0 && integer < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(integer))
            return
        }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        // Digits from the end of a buffer on the stack, then appended in one go.
        var magnitude = integer.magnitude
        withUnsafeMutableBytes(of: &digits) { buf in
            var start = buf.count
            while magnitude > 0 {
                start -= 1
                buf[start] = UInt8(ascii: "0") &+ UInt8(magnitude % 10)
                magnitude /= 10
            }
            if integer < 0 {
                start -= 1
                buf[start] = UInt8(ascii: "-")
            }
            let first = buf.baseAddress?.assumingMemoryBound(to: UInt8.self).advanced(by: start)
            bytes.append(contentsOf: UnsafeBufferPointer(start: first, count: buf.count - start))
        }
    }

    public mutating func write(number: Double) {
        guard number.isFinite else {
            raw("null")
            return
        }
        if number.rounded(.towardZero) == number, abs(number) < 1e15 {
            // Integral doubles print without ".0", as JavaScript does.
            write(integer: Int64(number))
            return
        }
        bytes.append(contentsOf: number.description.utf8)
    }

    public mutating func write(string: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = string
        s.withUTF8 { utf8 in
            var runStart = 0
            var i = 0
            let n = utf8.count
            while i < n {
                i = JSONStringRun.plainEnd(utf8, from: i).end
                if i == n { break }
                let c = utf8[i]
                if runStart < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
                switch c {
                case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "\\"))
                case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "f"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [
                        UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                        hex[Int(c >> 4)], hex[Int(c & 0xF)],
                    ])
                }
                i += 1
                runStart = i
            }
            if runStart < n { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<n])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

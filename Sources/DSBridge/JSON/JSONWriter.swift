// SPDX-License-Identifier: MIT

/// Writes compact JSON text as UTF-8 bytes into a growing array (``JSONOutput`` writes the
/// values). For text whose size is known before writing, ``JSONBoundedWriter`` writes the
/// same bytes through a pointer.
public struct JSONWriter: JSONOutput, Sendable {
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

    public mutating func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    public mutating func append(contentsOf run: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: run)
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
}

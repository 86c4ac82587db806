// SPDX-License-Identifier: MIT

/// Where compact JSON text is written, a byte or a run of bytes at a time: ``JSONWriter`` (a
/// growing array) or ``JSONBoundedWriter`` (memory sized up front, written through a
/// pointer). The extension writes JSON with these two: strings escaped as RFC 8259
/// requires, non-finite numbers (which JSON cannot carry) as `null`.
public protocol JSONOutput {
    /// Appends one byte of JSON text.
    mutating func append(_ byte: UInt8)
    /// Appends a run of bytes of JSON text.
    mutating func append(contentsOf run: UnsafeBufferPointer<UInt8>)
}

extension JSONOutput {
    /// Writes `value`.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let b): raw(b ? "true" : "false")
        case .integer(let i): write(integer: i)
        case .number(let d): write(number: d)
        case .string(let s): write(string: s)
        case .array(let elements):
            append(UInt8(ascii: "["))
            elements.withUnsafeBufferPointer { elements in  // read in place, without copies
                for i in elements.indices {
                    if i > 0 { append(UInt8(ascii: ",")) }
                    write(elements[i])
                }
            }
            append(UInt8(ascii: "]"))
        case .object(let members):
            append(UInt8(ascii: "{"))
            let keys = members.keys.elements
            members.values.elements.withUnsafeBufferPointer { values in  // read in place, without copies
                for i in values.indices {
                    if i > 0 { append(UInt8(ascii: ",")) }
                    write(string: keys[i])
                    append(UInt8(ascii: ":"))
                    write(values[i])
                }
            }
            append(UInt8(ascii: "}"))
        }
    }

    /// Appends bytes that are already valid JSON (a trusted fragment such as `"t":`).
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    /// Appends already-encoded JSON bytes verbatim.
    public mutating func raw(bytes other: [UInt8]) {
        other.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    /// Appends the text of a checked JSON value verbatim.
    public mutating func raw(_ value: RawJSON) {
        value.bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    /// Writes an integer in decimal.
    public mutating func write(integer: Int64) {
        if integer >= 0 && integer < 10 {
            append(UInt8(ascii: "0") &+ UInt8(integer))
            return
        }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        // Digits from the end of a buffer on the stack, two per division, then appended in one go.
        var magnitude = integer.magnitude
        withUnsafeMutableBytes(of: &digits) { buf in
            var start = buf.count
            JSONDigitPairs.table.withUTF8Buffer { pairs in
                while magnitude >= 10 {
                    let pair = Int(magnitude % 100) &* 2
                    magnitude /= 100
                    start -= 2
                    buf[start] = pairs[pair]
                    buf[start + 1] = pairs[pair + 1]
                }
            }
            if magnitude > 0 {
                start -= 1
                buf[start] = UInt8(ascii: "0") &+ UInt8(magnitude)
            }
            if integer < 0 {
                start -= 1
                buf[start] = UInt8(ascii: "-")
            }
            let first = buf.baseAddress?.assumingMemoryBound(to: UInt8.self).advanced(by: start)
            append(contentsOf: UnsafeBufferPointer(start: first, count: buf.count - start))
        }
    }

    /// Writes a number as JavaScript prints it (`null` when not finite).
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
        var text = number.description
        text.withUTF8 { append(contentsOf: $0) }
    }

    /// Writes a string, quoted and escaped.
    public mutating func write(string: String) {
        append(UInt8(ascii: "\""))
        var s = string
        s.withUTF8 { utf8 in
            var runStart = 0
            var i = 0
            let n = utf8.count
            while i < n {
                i = JSONStringRun.plainEnd(utf8, from: i).end
                if i == n { break }
                let c = utf8[i]
                if runStart < i { append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
                switch c {
                case UInt8(ascii: "\""): append(UInt8(ascii: "\\")); append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): append(UInt8(ascii: "\\")); append(UInt8(ascii: "\\"))
                case 0x0A: append(UInt8(ascii: "\\")); append(UInt8(ascii: "n"))
                case 0x0D: append(UInt8(ascii: "\\")); append(UInt8(ascii: "r"))
                case 0x09: append(UInt8(ascii: "\\")); append(UInt8(ascii: "t"))
                case 0x08: append(UInt8(ascii: "\\")); append(UInt8(ascii: "b"))
                case 0x0C: append(UInt8(ascii: "\\")); append(UInt8(ascii: "f"))
                default:
                    append(UInt8(ascii: "\\"))
                    append(UInt8(ascii: "u"))
                    append(UInt8(ascii: "0"))
                    append(UInt8(ascii: "0"))
                    append(Self.hexDigit(c >> 4))
                    append(Self.hexDigit(c & 0xF))
                }
                i += 1
                runStart = i
            }
            if runStart < n { append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<n])) }
        }
        append(UInt8(ascii: "\""))
    }

    /// The lower-case hex digit of `nibble` (0...15).
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ (nibble &- 10)
    }
}

/// "00" to "99": the two digits of each number below 100, for writing integers two digits at
/// a time.
enum JSONDigitPairs {
    static let table: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
}

// SPDX-License-Identifier: MIT

/// Writes one outgoing message into a caller-owned buffer, without allocating: literal
/// fragments, decimal integers, JSON strings (escaped) and pre-encoded JSON values. The
/// bench composes each frame at the moment it writes it.
struct FrameComposer {
    private let base: UnsafeMutableRawPointer
    private let capacity: Int
    /// Bytes written so far.
    private(set) var count = 0
    /// A write did not fit; the frame must be dropped.
    private(set) var overflowed = false

    init(base: UnsafeMutableRawPointer, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// The composed bytes.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    mutating func literal(_ text: StaticString) {
        raw(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends bytes as they are (pre-encoded JSON, HTTP text).
    mutating func raw(_ source: UnsafeRawBufferPointer) {
        guard source.count > 0 else { return }
        guard count + source.count <= capacity, let src = source.baseAddress else {
            overflowed = true
            return
        }
        (base + count).copyMemory(from: src, byteCount: source.count)
        count += source.count
    }

    mutating func raw(_ source: [UInt8]) {
        source.withUnsafeBytes { raw($0) }
    }

    mutating func byte(_ b: UInt8) {
        guard count < capacity else {
            overflowed = true
            return
        }
        base.storeBytes(of: b, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// A decimal integer.
    mutating func integer(_ value: Int64) {
        if value < 0 {
            byte(UInt8(ascii: "-"))
            integer(UInt64(value.magnitude))
        } else {
            integer(UInt64(value))
        }
    }

    mutating func integer(_ value: UInt64) {
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = value
        var k = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[19 - k] = UInt8(truncatingIfNeeded: n % 10) + 0x30
                n /= 10
                k += 1
            } while n > 0
            raw(UnsafeRawBufferPointer(rebasing: d[(20 - k)...]))
        }
    }

    /// A JSON string with quotes, escaping what JSON requires.
    mutating func jsonString(_ source: UnsafeRawBufferPointer) {
        byte(UInt8(ascii: "\""))
        for b in source {
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                byte(UInt8(ascii: "\\"))
                byte(b)
            case 0..<0x20:
                literal("\\u00")
                let hex: StaticString = "0123456789abcdef"
                byte(hex.utf8Start[Int(b >> 4)])
                byte(hex.utf8Start[Int(b & 0xF)])
            default:
                byte(b)
            }
        }
        byte(UInt8(ascii: "\""))
    }

    mutating func jsonString(_ source: [UInt8]) {
        source.withUnsafeBytes { jsonString($0) }
    }
}

extension FrameComposer {
    /// `text` as a JSON string literal (quoted and escaped), as bytes.
    static func jsonQuoted(_ text: String) -> [UInt8] {
        let source = Array(text.utf8)
        let capacity = source.count * 6 + 2
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            guard let base = buffer.baseAddress else { return }
            var c = FrameComposer(base: UnsafeMutableRawPointer(base), capacity: capacity)
            c.jsonString(source)
            count = c.count
        }
    }
}

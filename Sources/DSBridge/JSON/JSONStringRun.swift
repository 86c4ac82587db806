// SPDX-License-Identifier: MIT

/// Finds where a run of bytes that a JSON string holds as they are ends: at the first `"`,
/// `\` or control byte (below 0x20). The reader, the scanner and the writer all look for
/// exactly these bytes, so they share this search; it tests eight bytes at a time.
enum JSONStringRun {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080
    private static let quotes = ones &* UInt64(UInt8(ascii: "\""))
    private static let backslashes = ones &* UInt64(UInt8(ascii: "\\"))

    /// Whether any byte of `word` is zero.
    @inline(__always)
    private static func hasZeroByte(_ word: UInt64) -> Bool {
        (word &- ones) & ~word & highs != 0
    }

    /// Whether any byte of `word` is a `"`, a `\` or below 0x20.
    @inline(__always)
    private static func hasSpecialByte(_ word: UInt64) -> Bool {
        // Below 0x20: (word - 0x20 in each byte) borrows into the byte's high bit where the
        // byte was below 0x20 and its own high bit was clear (exact, per byte, for n <= 128).
        let below = (word &- ones &* 0x20) & ~word & highs
        return below != 0 || hasZeroByte(word ^ quotes) || hasZeroByte(word ^ backslashes)
    }

    /// The index of the first `"`, `\` or control byte at or after `start` (or `bytes.count`),
    /// and whether a byte of 0x80 or above came before it.
    @inline(__always)
    static func plainEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, sawNonASCII: Bool) {
        guard let base = bytes.baseAddress else { return (start, false) }
        let count = bytes.count
        var i = start
        var high: UInt64 = 0
        while i + 8 <= count {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            if hasSpecialByte(word) { break }
            high |= word
            i += 8
        }
        var highByte: UInt8 = 0
        while i < count {
            let c = base[i]
            if c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { break }
            highByte |= c
            i += 1
        }
        return (i, high & highs != 0 || highByte >= 0x80)
    }
}

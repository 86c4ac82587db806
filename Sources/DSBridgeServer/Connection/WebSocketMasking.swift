// SPDX-License-Identifier: MIT

/// The masking of a client's frame payload (RFC 6455 5.3): byte `i` of the payload is XORed
/// with byte `i % 4` of the frame's masking key, so masking and unmasking are the same.
enum WebSocketMasking {
    /// XORs `bytes` in place with `key` (its first byte in the low 8 bits), starting at key byte
    /// `phase` (0-3): the payload offset of `bytes[0]` modulo 4 when a payload comes in pieces.
    /// Eight bytes at a time, with the key rotated to the phase and repeated into a word.
    static func unmask(_ bytes: UnsafeMutableRawBufferPointer, key: UInt32, phase: Int) {
        guard let base = bytes.baseAddress else { return }
        let count = bytes.count
        // Key byte `phase` first (a shift by 32 gives 0, so phase 0 leaves the key as it is).
        let shift = UInt32(8 * (phase & 3))
        var rotated = key >> shift | key << (32 - shift)
        // The word as it lies in memory: little-endian, so its first byte meets `rotated`'s low byte.
        let word = (UInt64(rotated) | UInt64(rotated) << 32).littleEndian
        var index = 0
        while count - index >= 8 {
            let masked = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            base.storeBytes(of: masked ^ word, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        // The tail starts at a multiple of 8, so again at key byte `phase`.
        while index < count {
            let masked = base.load(fromByteOffset: index, as: UInt8.self)
            base.storeBytes(of: masked ^ UInt8(truncatingIfNeeded: rotated), toByteOffset: index, as: UInt8.self)
            rotated = rotated >> 8 | rotated << 24
            index += 1
        }
    }
}

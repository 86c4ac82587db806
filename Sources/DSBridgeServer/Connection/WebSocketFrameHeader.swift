// SPDX-License-Identifier: MIT

/// The header of one WebSocket frame (RFC 6455 5.2), decoded as sent: nothing is checked here
/// (``WebSocketFrameReader`` applies the rules, in their order).
struct WebSocketFrameHeader: Equatable, Sendable {
    /// The opcodes RFC 6455 defines.
    enum Opcode: UInt8, Sendable {
        /// A further fragment of the message in progress.
        case continuation = 0
        /// The first (or only) frame of a text message.
        case text = 1
        /// The first (or only) frame of a binary message.
        case binary = 2
        /// The closing handshake.
        case close = 8
        /// A ping, to be answered with a pong.
        case ping = 9
        /// A pong.
        case pong = 10

        /// Close, ping and pong: at most 125 bytes, never fragmented (RFC 6455 5.5).
        var isControl: Bool { rawValue >= 8 }
    }

    /// FIN: the last frame of its message.
    let fin: Bool
    /// RSV1-RSV3, in the low 3 bits; no extension is negotiated, so they must be 0.
    let reservedBits: UInt8
    /// The opcode; `nil`: a value RFC 6455 reserves (3-7, 11-15).
    let opcode: Opcode?
    /// MASK: the payload is masked with ``maskKey``.
    let masked: Bool
    /// The declared payload length: the 7-bit one, or its 16- or 64-bit extension (as sent,
    /// minimal or not).
    let payloadLength: UInt64
    /// The masking key, its first byte in the low 8 bits (0 when the frame is not masked).
    let maskKey: UInt32
    /// The header's size in bytes: 2 to 14.
    let size: Int

    /// The size of a header whose second byte is `secondByte`: 2, plus 2 or 8 for an extended
    /// length, plus 4 for a masking key.
    static func size(secondByte: UInt8) -> Int {
        let extended: Int
        switch secondByte & 0x7F {
        case 126: extended = 2
        case 127: extended = 8
        default: extended = 0
        }
        return 2 + extended + (secondByte & 0x80 != 0 ? 4 : 0)
    }

    /// Decodes the header at the start of `bytes`; `nil` when `bytes` hold only part of it.
    init?(decoding bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 2 else { return nil }
        let first = bytes[0]
        let second = bytes[1]
        let size = Self.size(secondByte: second)
        guard bytes.count >= size else { return nil }
        var index = 2
        var length = UInt64(second & 0x7F)
        if length >= 126 {
            let width = length == 126 ? 2 : 8
            length = 0
            for _ in 0..<width {
                length = length << 8 | UInt64(bytes[index])
                index += 1
            }
        }
        let masked = second & 0x80 != 0
        // Little-endian: the key's first byte in the low 8 bits.
        let key = masked ? UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self)) : 0
        fin = first & 0x80 != 0
        reservedBits = (first >> 4) & 0x07
        opcode = Opcode(rawValue: first & 0x0F)
        self.masked = masked
        payloadLength = length
        maskKey = key
        self.size = size
    }
}

// SPDX-License-Identifier: MIT
import DSBridge

/// Frames the server sends (RFC 6455 5.2): final, unmasked, with the
/// shortest length encoding. Pure.
enum WebSocketFrameWriter {
    /// Opcodes the server sends.
    enum Opcode: UInt8 {
        case text = 1
        case close = 8
        case ping = 9
        case pong = 10
    }

    /// Appends the head of a final frame of `opcode` carrying `length` payload bytes.
    static func append(_ opcode: Opcode, length: Int, to out: inout [UInt8]) {
        out.append(0x80 | opcode.rawValue)
        if length < 126 {
            out.append(UInt8(length))
        } else if length <= 0xFFFF {
            out.append(126)
            out.append(UInt8(truncatingIfNeeded: length >> 8))
            out.append(UInt8(truncatingIfNeeded: length))
        } else {
            out.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift))) }
        }
    }

    /// The payload of a close frame: the status code, then the reason clipped to what a
    /// control frame holds (``CloseReason/clipped(_:)``).
    static func closePayload(code: Int, reason: String) -> [UInt8] {
        [UInt8(truncatingIfNeeded: code >> 8), UInt8(truncatingIfNeeded: code)] + Array(CloseReason.clipped(reason).utf8)
    }
}

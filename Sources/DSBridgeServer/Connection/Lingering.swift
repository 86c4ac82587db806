// SPDX-License-Identifier: MIT

/// A lingering close (RFC 9112 9.6): an answer that closes the connection was sent before
/// the request body was read (401, 405, an early 413...). Closing at once would make the
/// kernel reset the connection over the unread bytes, and a client still sending its body
/// would never read the answer. So the write side is shut down and the rest of the body
/// is read and dropped, for at most ``maxMilliseconds`` and ``maxBytes``, then the
/// connection closes.
struct Lingering: Sendable, Equatable {
    /// How long the rest of a body is read after the answer.
    static let maxMilliseconds: UInt64 = 2_000
    /// How many bytes of it are read at most.
    static let maxBytes = 64 << 20

    /// When the connection closes, whatever is still unread.
    let deadline: UInt64
    /// Bytes dropped so far.
    private(set) var dropped = 0

    init(now: UInt64) {
        deadline = now + Self.maxMilliseconds
    }

    /// Counts `count` more dropped bytes; `false` once over ``maxBytes``.
    mutating func drop(_ count: Int) -> Bool {
        dropped += count
        return dropped <= Self.maxBytes
    }
}

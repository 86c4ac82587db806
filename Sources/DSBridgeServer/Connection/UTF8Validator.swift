// SPDX-License-Identifier: MIT

/// Incremental UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF), across buffers.
///
/// The bytes of one message may arrive in any number of pieces, split anywhere (even inside a
/// character): each ``validate(_:)`` continues where the last one stopped, and ``isComplete``
/// tells whether the message may end here. Runs of ASCII are checked 8 bytes at a time; the
/// rest goes through a small explicit state machine (the well-formed byte sequences of
/// Unicode 15, table 3-7).
struct UTF8Validator: Equatable, Sendable {
    /// Where the validator stands between two bytes.
    private enum State: UInt8, Sendable {
        /// Between characters: the next byte starts one.
        case ground
        /// One continuation byte (80-BF) still to come.
        case need1
        /// Two continuation bytes (80-BF) still to come.
        case need2
        /// Three continuation bytes (80-BF) still to come.
        case need3
        /// After E0: A0-BF (no overlong 3-byte form), then one more.
        case afterE0
        /// After ED: 80-9F (no surrogates D800-DFFF), then one more.
        case afterED
        /// After F0: 90-BF (no overlong 4-byte form), then two more.
        case afterF0
        /// After F4: 80-8F (nothing above U+10FFFF), then two more.
        case afterF4
        /// An invalid byte was seen: stays so until ``UTF8Validator/reset()``.
        case failed
    }

    /// The state after the bytes checked so far.
    private var state = State.ground

    /// A validator at the start of a message.
    init() {}

    /// Checks `bytes` as the continuation of what was checked before; false at the first invalid byte (then the validator stays failed).
    mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var state = self.state
        guard state != .failed else { return false }
        guard let base = bytes.baseAddress else { return true }
        let end = bytes.count
        var index = 0
        while index < end {
            if state == .ground {
                // ASCII, a word at a time; on the first word with a high bit, skip to that byte.
                while end - index >= 8 {
                    let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                    let high = word & 0x8080_8080_8080_8080
                    if high != 0 {
                        index += high.trailingZeroBitCount >> 3
                        break
                    }
                    index += 8
                }
                if index == end { break }
            }
            state = Self.next(state, base.load(fromByteOffset: index, as: UInt8.self))
            if state == .failed { break }
            index += 1
        }
        self.state = state
        return state != .failed
    }

    /// True when the bytes so far end on a character boundary (no sequence left open).
    var isComplete: Bool { state == .ground }

    /// Starts over for a new message.
    mutating func reset() {
        state = .ground
    }

    /// The state after `byte` in `state`.
    @inline(__always)
    private static func next(_ state: State, _ byte: UInt8) -> State {
        switch state {
        case .ground:
            switch byte {
            case 0x00...0x7F: return .ground
            case 0xC2...0xDF: return .need1
            case 0xE0: return .afterE0
            case 0xED: return .afterED
            case 0xE1...0xEF: return .need2
            case 0xF0: return .afterF0
            case 0xF1...0xF3: return .need3
            case 0xF4: return .afterF4
            default: return .failed  // 80-C1 (stray continuation, overlong 2-byte lead), F5-FF
            }
        case .need1: return isContinuation(byte) ? .ground : .failed
        case .need2: return isContinuation(byte) ? .need1 : .failed
        case .need3: return isContinuation(byte) ? .need2 : .failed
        case .afterE0: return (0xA0...0xBF).contains(byte) ? .need1 : .failed
        case .afterED: return (0x80...0x9F).contains(byte) ? .need1 : .failed
        case .afterF0: return (0x90...0xBF).contains(byte) ? .need2 : .failed
        case .afterF4: return (0x80...0x8F).contains(byte) ? .need2 : .failed
        case .failed: return .failed
        }
    }

    /// 80-BF: a byte that continues a multi-byte character.
    @inline(__always)
    private static func isContinuation(_ byte: UInt8) -> Bool {
        byte & 0xC0 == 0x80
    }
}

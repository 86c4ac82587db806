// SPDX-License-Identifier: MIT

/// One thing a page sent, read from its WebSocket frames.
package enum WebSocketInput: Equatable, Sendable {
    /// A whole text message: reassembled from its fragments, unmasked, valid UTF-8.
    case text([UInt8])
    /// A ping and its payload (answered with a pong carrying the same payload).
    case ping([UInt8])
    /// A pong.
    case pong
    /// The page closes: its status code (`nil`: the close frame had no payload) and reason (UTF-8 bytes).
    case close(code: UInt16?, reason: [UInt8])
}

/// Why reading stops: the connection is closed with this status (RFC 6455 7.4.1).
package struct WebSocketReadFailure: Error, Equatable {
    /// 1002 protocol error, 1003 binary data, 1007 invalid UTF-8, 1009 message too big.
    package let code: UInt16
    /// A short reason for the close frame and the log (ASCII, at most 100 bytes).
    package let reason: String

    /// 1002: the frames break RFC 6455, for `reason`.
    static func protocolError(_ reason: String) -> Self {
        Self(code: 1002, reason: reason)
    }

    /// 1003: a binary frame (the bridge speaks text only).
    static let binaryData = Self(code: 1003, reason: "binary frames are not accepted")
    /// 1007: a text message or a close reason that is not UTF-8.
    static let invalidUTF8 = Self(code: 1007, reason: "invalid UTF-8")
    /// 1009: a text message longer than the reader's limit.
    static let messageTooBig = Self(code: 1009, reason: "message too big")
}

/// Reads a client's WebSocket frames (RFC 6455, server side) from the bytes of its socket, as they come (any split).
///
/// A pure value: no socket, no clock. The owner feeds each read's bytes to ``read(_:deliver:)``
/// and acts on what is delivered (answers pings, handles text, answers the close) or thrown
/// (closes with the failure's code). No extension is negotiated, so RSV bits are refused.
///
/// The common case costs one copy: a whole unfragmented text frame inside the bytes read is
/// unmasked in place, validated and delivered as a new array. Only what spans reads (part of
/// a header, part of a payload, the fragments of a message) is copied into the reader's own
/// storage, which is empty again (and its memory released) once the frame or message is done.
/// Idle, the reader holds no memory beyond its few words.
package struct WebSocketFrameReader: Sendable {
    /// The frame whose payload is being read.
    private struct PayloadInProgress: Sendable {
        /// Payload bytes still to come.
        var remaining: Int
        /// The frame's masking key, its first byte in the low 8 bits.
        let maskKey: UInt32
        /// The key byte the next payload byte is masked with (payload offset modulo 4).
        var maskPhase: UInt8
        /// The frame's opcode (checked: not binary).
        let opcode: WebSocketFrameHeader.Opcode
        /// FIN: the frame ends its message.
        let fin: Bool
    }

    /// The largest text message accepted, in bytes after reassembly.
    private let maxMessageBytes: Int
    /// Part of a header begun in an earlier read; or, while a ping or close frame's payload
    /// spans reads, the part of it read so far (unmasked).
    private var partial: [UInt8] = []
    /// The unmasked bytes so far of a text message that spans frames or reads.
    private var message: [UInt8] = []
    /// The frame being read, once its header is in; `nil`: the next byte starts a header.
    private var payload: PayloadInProgress?
    /// The UTF-8 check of the text message being read, across its frames and reads.
    private var utf8 = UTF8Validator()
    /// A text frame without FIN has come: the next data frame must be its continuation.
    private var fragmentedMessage = false
    /// A failure was thrown or `.close` delivered: later reads are ignored.
    private var stopped = false

    /// `maxMessageBytes`: the largest text message accepted (after reassembly); larger fails with 1009.
    package init(maxMessageBytes: Int) {
        self.maxMessageBytes = max(0, maxMessageBytes)
    }

    /// Bytes held between calls (a partial frame, a message being reassembled).
    package var bufferedBytes: Int { partial.count + message.count }

    /// Reads `bytes` (the next bytes from the socket; unmasked in place where convenient) and calls `deliver` for each complete input, in order. Throws the first failure. After a failure or after delivering `.close`, the caller stops feeding (behaviour then unspecified but must not crash).
    ///
    /// Once stopped (a failure thrown, or `.close` delivered), this reader ignores whatever it is
    /// given: nothing is delivered and nothing thrown. Bytes after a close frame in the same
    /// read are ignored too.
    package mutating func read(_ bytes: UnsafeMutableRawBufferPointer, deliver: (WebSocketInput) -> Void) throws(WebSocketReadFailure) {
        guard !stopped else { return }
        do {
            try readFrames(bytes, deliver: deliver)
        } catch {
            stopped = true
            throw error
        }
    }

    /// Reads frames from `bytes` until they run out or a close frame has been delivered.
    private mutating func readFrames(_ bytes: UnsafeMutableRawBufferPointer, deliver: (WebSocketInput) -> Void) throws(WebSocketReadFailure) {
        var offset = 0
        while true {
            var frame: PayloadInProgress
            if let current = payload {
                frame = current
            } else {
                guard let header = readHeader(bytes, offset: &offset) else { return }
                frame = try begin(header)
            }
            let take = min(frame.remaining, bytes.count - offset)
            let chunk = UnsafeMutableRawBufferPointer(rebasing: bytes[offset..<(offset + take)])
            offset += take
            frame.remaining -= take
            if frame.opcode != .pong {  // a pong's payload is not looked at
                WebSocketMasking.unmask(chunk, key: frame.maskKey, phase: Int(frame.maskPhase))
                frame.maskPhase = UInt8(truncatingIfNeeded: (Int(frame.maskPhase) + take) & 3)
            }
            if frame.opcode.isControl {
                try readControl(frame, UnsafeRawBufferPointer(chunk), deliver: deliver)
            } else {
                try readText(frame, UnsafeRawBufferPointer(chunk), deliver: deliver)
            }
            guard frame.remaining == 0 else {
                payload = frame
                return
            }
            payload = nil
            if stopped { return }  // the close was delivered
        }
    }

    /// The next header, once all of it is in (from `bytes` at `offset`, after the part held from
    /// earlier reads); `nil` when `bytes` ran out first (what there was is held in ``partial``).
    /// Moves `offset` past what it used.
    private mutating func readHeader(_ bytes: UnsafeMutableRawBufferPointer, offset: inout Int) -> WebSocketFrameHeader? {
        let available = UnsafeRawBufferPointer(rebasing: bytes[offset...])
        if partial.isEmpty {
            if let header = WebSocketFrameHeader(decoding: available) {
                offset += header.size
                return header
            }
            partial.append(contentsOf: available)
            offset = bytes.count
            return nil
        }
        // A header begun in an earlier read: take just the bytes that complete it.
        var used = 0
        while true {
            let size = partial.count < 2 ? 2 : WebSocketFrameHeader.size(secondByte: partial[1])
            let wanted = min(size - partial.count, available.count - used)
            if wanted == 0 { break }
            partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: available[used..<(used + wanted)]))
            used += wanted
        }
        offset += used
        guard let header = partial.withUnsafeBytes({ WebSocketFrameHeader(decoding: $0) }) else { return nil }
        partial = []
        return header
    }

    /// Checks a frame's header against the rules, in this order (the first broken one is thrown),
    /// and starts reading its payload.
    ///
    /// The frame on its own: RSV bits set (1002); a reserved opcode (1002); not masked (1002); a
    /// 64-bit length with its top bit set (1002); a control frame without FIN or longer than 125
    /// bytes (1002). The frame in its message: a continuation with no message in progress
    /// (1002); a text or binary frame while one is (1002); a binary frame (1003); the message so
    /// far plus this frame's declared length above the limit (1009).
    private mutating func begin(_ header: WebSocketFrameHeader) throws(WebSocketReadFailure) -> PayloadInProgress {
        guard header.reservedBits == 0 else { throw .protocolError("reserved bits set") }
        guard let opcode = header.opcode else { throw .protocolError("reserved opcode") }
        guard header.masked else { throw .protocolError("client frames must be masked") }
        guard header.payloadLength >> 63 == 0 else { throw .protocolError("frame length out of range") }
        if opcode.isControl {
            guard header.fin else { throw .protocolError("fragmented control frame") }
            guard header.payloadLength <= 125 else { throw .protocolError("control frame too long") }
        }
        var messageSoFar = 0
        switch opcode {
        case .continuation:
            guard fragmentedMessage else { throw .protocolError("continuation frame without a message") }
            messageSoFar = message.count
        case .text, .binary:
            guard !fragmentedMessage else { throw .protocolError("new message before the fragmented one ended") }
        case .close, .ping, .pong:
            break
        }
        guard opcode != .binary else { throw .binaryData }
        if !opcode.isControl {
            guard header.payloadLength <= UInt64(maxMessageBytes - messageSoFar) else { throw .messageTooBig }
            fragmentedMessage = !header.fin
        }
        return PayloadInProgress(
            remaining: Int(truncatingIfNeeded: header.payloadLength), maskKey: header.maskKey, maskPhase: 0, opcode: opcode, fin: header.fin)
    }

    /// Takes the next unmasked `chunk` of a text or continuation frame's payload: checks its UTF-8
    /// and, when it ends the message, delivers the message (straight from `chunk` when nothing
    /// of the message was held: the one copy of the common case).
    private mutating func readText(
        _ frame: PayloadInProgress, _ chunk: UnsafeRawBufferPointer, deliver: (WebSocketInput) -> Void
    ) throws(WebSocketReadFailure) {
        guard utf8.validate(chunk) else { throw .invalidUTF8 }
        guard frame.remaining == 0, frame.fin else {
            message.append(contentsOf: chunk)
            return
        }
        guard utf8.isComplete else { throw .invalidUTF8 }
        utf8.reset()
        if message.isEmpty {
            deliver(.text(Array(chunk)))
        } else {
            message.append(contentsOf: chunk)
            let text = message
            message = []  // the buffer goes with the delivered message: no copy, nothing kept
            deliver(.text(text))
        }
    }

    /// Takes the next unmasked `chunk` of a control frame's payload and, at its end, delivers the
    /// ping, pong or close (a close's payload checked first: code and UTF-8 reason).
    private mutating func readControl(
        _ frame: PayloadInProgress, _ chunk: UnsafeRawBufferPointer, deliver: (WebSocketInput) -> Void
    ) throws(WebSocketReadFailure) {
        if frame.opcode == .pong {
            if frame.remaining == 0 { deliver(.pong) }
            return
        }
        // Held only when the payload spans reads; otherwise the whole of it is in `chunk`.
        if frame.remaining > 0 || !partial.isEmpty { partial.append(contentsOf: chunk) }
        guard frame.remaining == 0 else { return }
        let body: [UInt8]
        if partial.isEmpty {
            body = Array(chunk)
        } else {
            body = partial
            partial = []
        }
        if frame.opcode == .ping {
            deliver(.ping(body))
        } else {
            deliver(try Self.close(body))
            stopped = true
        }
    }

    /// The `.close` a close frame's (unmasked) payload stands for (RFC 6455 5.5.1, 7.4): empty, or
    /// a status code a peer may send, then a UTF-8 reason.
    private static func close(_ body: [UInt8]) throws(WebSocketReadFailure) -> WebSocketInput {
        if body.isEmpty { return .close(code: nil, reason: []) }
        guard body.count >= 2 else { throw .protocolError("close frame with a 1-byte payload") }
        let code = UInt16(body[0]) << 8 | UInt16(body[1])
        switch code {
        case 1000...1003, 1007...1011, 3000...4999: break
        default: throw .protocolError("invalid close code")
        }
        let reason = Array(body[2...])
        var utf8 = UTF8Validator()
        guard reason.withUnsafeBytes({ utf8.validate($0) }), utf8.isComplete else { throw .invalidUTF8 }
        return .close(code: code, reason: reason)
    }
}

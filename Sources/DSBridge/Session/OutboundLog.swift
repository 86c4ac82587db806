// SPDX-License-Identifier: MIT
import DequeModule

/// A session's numbered server→page messages (`ret`, `cb`, `invoke`): the evaluator queue
/// and the replay buffer in one. Messages get `seq` 1, 2, ... in the order appended; they
/// are sent in that order, coalesced into batches, and kept until the page acknowledges
/// them, so a resumed socket can be sent everything after the page's `ack` again.
/// Pure value type; the session guards it with its lock.
public struct OutboundLog: Sendable {
    struct Entry: Sendable {
        let seq: Int64
        let bytes: [UInt8]
    }

    /// Why a message was not appended.
    public enum AppendError: Error, Sendable, Equatable {
        /// The message alone is larger than the byte bound; it was not queued.
        case messageTooLarge(bytes: Int)
        /// Keeping it would exceed a bound; the session must end with 4008.
        case boundExceeded(String)
    }

    private var entries = Deque<Entry>()
    /// Bytes of the kept (unacknowledged) messages.
    public private(set) var keptBytes = 0
    /// The `seq` of the last message appended.
    public private(set) var lastSeq: Int64 = 0
    /// The `seq` of the last message handed to a socket.
    public private(set) var sentSeq: Int64 = 0
    /// The highest `seq` the page acknowledged.
    public private(set) var ackedSeq: Int64 = 0

    /// With a journal (docs/CLUSTER.md): messages above ``durableSeq`` are not handed to a
    /// socket until the journal holds them.
    public private(set) var isGated = false
    /// The `seq` of the last message the journal holds (meaningful when gated).
    public private(set) var durableSeq: Int64 = 0

    public let maxMessages: Int
    public let maxBytes: Int
    /// The most bytes one batch frame holds (a single larger message goes alone).
    public let maxBatchBytes: Int

    public init(maxMessages: Int = 10_000, maxBytes: Int = 8 << 20, maxBatchBytes: Int = 256 << 10) {
        self.maxMessages = maxMessages
        self.maxBytes = maxBytes
        self.maxBatchBytes = maxBatchBytes
    }

    /// A log continued from a journal: `messages` (unacknowledged, all durable) after
    /// `acked`, numbering on after `lastSeq`; `nil` unless they are exactly `acked + 1`
    /// through `lastSeq` (a journal that lost some cannot be replayed right). Bounds are
    /// not checked: the messages were accepted by the node that made them.
    public init?(
        restoring messages: [JournalMessage], lastSeq: Int64, acked: Int64,
        maxMessages: Int = 10_000, maxBytes: Int = 8 << 20, maxBatchBytes: Int = 256 << 10
    ) {
        self.init(maxMessages: maxMessages, maxBytes: maxBytes, maxBatchBytes: maxBatchBytes)
        guard acked <= lastSeq else { return nil }
        var expected = acked + 1
        for m in messages where m.seq > acked {
            guard m.seq == expected else { return nil }
            entries.append(Entry(seq: m.seq, bytes: m.bytes))
            keptBytes += m.bytes.count
            expected += 1
        }
        guard expected == lastSeq + 1 else { return nil }
        self.lastSeq = lastSeq
        ackedSeq = acked
        sentSeq = acked
        isGated = true
        durableSeq = lastSeq
    }

    /// The last `seq` a socket may be given now.
    var sendableSeq: Int64 { isGated ? durableSeq : lastSeq }

    /// Turns the journal gate on (everything appended so far counts as durable) or off
    /// (the journal is unreachable: messages go out as appended).
    public mutating func setGated(_ gated: Bool) {
        isGated = gated
        durableSeq = lastSeq
    }

    /// The journal holds every message up to `seq`.
    public mutating func markDurable(through seq: Int64) {
        durableSeq = max(durableSeq, min(seq, lastSeq))
    }

    /// Removes and returns the messages the journal does not hold, oldest first (the
    /// session moved to another node, which numbers them anew).
    public mutating func takeUndurable() -> [JournalMessage] {
        guard isGated else { return [] }
        var taken: [JournalMessage] = []
        while let last = entries.last, last.seq > durableSeq {
            taken.append(JournalMessage(seq: last.seq, bytes: last.bytes))
            keptBytes -= last.bytes.count
            entries.removeLast()
        }
        lastSeq = durableSeq
        if sentSeq > lastSeq { sentSeq = lastSeq }
        return taken.reversed()
    }

    /// Messages kept for replay.
    public var keptCount: Int { entries.count }

    /// The kept (unacknowledged) messages in `seq` order (journal snapshots).
    public var kept: [JournalMessage] { entries.map { JournalMessage(seq: $0.seq, bytes: $0.bytes) } }

    /// The bytes of the last message appended, if it is still kept.
    var lastBytes: [UInt8]? { entries.last.flatMap { $0.seq == lastSeq ? $0.bytes : nil } }

    /// Whether some appended messages have not been handed to a socket yet.
    public var hasUnsent: Bool { sentSeq < sendableSeq }

    /// Would a message of `size` bytes fit on its own?
    public func fits(size: Int) -> Bool { size <= maxBytes }

    /// Numbers and keeps `message`; returns its `seq`.
    public mutating func append(_ message: ServerMessage) throws(AppendError) -> Int64 {
        // Not through `append(encoding:)`: a closure capturing the message copied it (and
        // destroyed the copy) for every answer, about 220 instructions.
        let seq = lastSeq + 1
        try keep(message.encoded(seq: seq), seq: seq)
        return seq
    }

    /// Numbers and keeps the message `encode` writes for its `seq` (which must be a
    /// sequenced message); returns the `seq`.
    public mutating func append(encoding encode: (Int64) -> [UInt8]) throws(AppendError) -> Int64 {
        let seq = lastSeq + 1
        try keep(encode(seq), seq: seq)
        return seq
    }

    /// Keeps `bytes`, the message numbered `seq` (the next one), within the bounds.
    private mutating func keep(_ bytes: consuming [UInt8], seq: Int64) throws(AppendError) {
        let count = bytes.count
        if count > maxBytes { throw .messageTooLarge(bytes: count) }
        if entries.count + 1 > maxMessages {
            throw .boundExceeded("replay buffer holds \(maxMessages) unacknowledged messages (replayMaxMessages)")
        }
        if keptBytes + count > maxBytes {
            throw .boundExceeded("replay buffer holds over \(maxBytes) bytes of unacknowledged messages (replayMaxBytes)")
        }
        keptBytes += count
        lastSeq = seq
        entries.append(Entry(seq: seq, bytes: bytes))
    }

    /// Drops every message up to `seq`; lower than a previous ack is ignored, above the
    /// last appended is clamped.
    public mutating func acknowledge(_ seq: Int64) {
        let upTo = min(seq, lastSeq)
        guard upTo > ackedSeq else { return }
        ackedSeq = upTo
        while let first = entries.first, first.seq <= upTo {
            keptBytes -= first.bytes.count
            entries.removeFirst()
        }
        if sentSeq < ackedSeq { sentSeq = ackedSeq }
    }

    /// Prepares a resend for a new socket: everything after `ack` will be sent again.
    public mutating func rewind(toAck ack: Int64) {
        acknowledge(ack)
        sentSeq = ackedSeq
    }

    /// The next frame to write: one message alone, or several as a JSON array; `nil` when
    /// everything appended has been taken.
    public mutating func takeFrame() -> [UInt8]? {
        let limit = sendableSeq
        guard sentSeq < limit, let firstIndex = index(ofSeq: sentSeq + 1) else { return nil }
        // Entries up to `limit` only (all of them when not gated).
        let available = entries.count - Int(lastSeq - limit)
        if firstIndex == available - 1 || entries[firstIndex].bytes.count >= maxBatchBytes {
            let e = entries[firstIndex]
            sentSeq = e.seq
            return e.bytes
        }
        var frameSize = 1
        var end = firstIndex
        while end < available {
            let size = entries[end].bytes.count
            if end > firstIndex, frameSize + size + 1 > maxBatchBytes { break }  // +1: its comma; the "]" is already counted
            frameSize += size + 1
            end += 1
        }
        var frame: [UInt8] = []
        frame.reserveCapacity(frameSize)
        frame.append(UInt8(ascii: "["))
        var i = firstIndex
        while i < end {
            let e = entries[i]
            if i > firstIndex { frame.append(UInt8(ascii: ",")) }
            frame.append(contentsOf: e.bytes)
            sentSeq = e.seq
            i += 1
        }
        frame.append(UInt8(ascii: "]"))
        return frame
    }

    private func index(ofSeq seq: Int64) -> Int? {
        guard let first = entries.first else { return nil }
        let i = Int(seq - first.seq)
        return i >= 0 && i < entries.count ? i : nil
    }
}

// SPDX-License-Identifier: MIT
import CLibWebSockets
import DequeModule

/// The page side of PROTOCOL.md on one WebSocket (worker thread): `hello`/`welcome`
/// (new or resumed), calls with ids in send order, `ret`/`cb` matched to their calls,
/// `invoke`s answered with `_dsb.returnValue`, an `ack` at least every 64 messages and
/// within a second of unacknowledged traffic. What it sends, and when, depends on the
/// scenario (`PageClient+Workload.swift`).
final class PageClient: Link {
    /// Something to send, composed when it is written.
    enum Job {
        case hello
        case call(PageCallKind, madeAt: UInt64)
        /// Answer to the invoke `callbackId`: for `bench.answer` (timed from `madeAt`, when
        /// its trigger was sent), `_hasJavascriptMethod` (`known`) or anything else.
        case answer(callbackId: Int64, kind: AnswerKind, madeAt: UInt64)
    }

    enum AnswerKind {
        case registered
        case hasMethod(Bool)
        case unknown
    }

    var outbox = Deque<Job>()
    var pending: PendingCalls
    var ackDue = false
    var nextCallID: Int64 = 1
    var highestSeq: Int64 = 0
    var ackedSeq: Int64 = 0
    var lastAckAt: UInt64 = 0
    /// An ack is scheduled on the worker's timer (`--client-loop uv`).
    var ackScheduled = false
    /// When the oldest message not acknowledged yet arrived (an ack sent clears it).
    var firstUnackedAt: UInt64?
    /// The session's token, once welcomed (or the one being resumed).
    var token: [UInt8]?
    /// Resuming: the `ack` the hello carries.
    let resumeAck: Int64
    let isResume: Bool
    /// `closePage` was sent: nothing else is.
    var closing = false
    /// Calls (`syn`, `async`) or invokes (`invoke`) outstanding.
    var inFlight = 0
    /// `invoke`: triggers sent whose invokes have not all arrived: (madeAt, remaining).
    var triggers = Deque<(id: Int64, madeAt: UInt64, remaining: Int)>()

    init(worker: ClientWorker, resuming ticket: ResumeTicket?) {
        let o = worker.options
        let expected = o.scenario == .invoke ? o.inFlight * (o.invokeBatch + 1) + 32 : o.inFlight + 16
        pending = PendingCalls(expected: expected)
        if let ticket {
            token = ticket.token
            resumeAck = ticket.ack
            highestSeq = ticket.ack
            ackedSeq = ticket.ack
            nextCallID = ticket.lastCallID + 1
            isResume = true
        } else {
            resumeAck = 0
            isResume = false
        }
        super.init(worker: worker)
    }

    override var subprotocol: StaticString? { "dsbridge.v1" }

    override func connected() {
        outbox.append(.hello)
        wantWrite()
    }

    // MARK: receiving

    override func received(_ bytes: UnsafeRawBufferPointer) {
        var scanner = ServerMessageScanner(bytes)
        let now = monotonicNanos()
        do {
            while let message = try scanner.next() {
                handle(message, scanner: scanner, now: now)
            }
        } catch {
            worker.recordError("client.unreadableFrame")
        }
        if highestSeq - ackedSeq >= 64 {
            ackDue = true
        } else if highestSeq > ackedSeq, worker.schedulesAcks {
            // As web/dsbridge.js does: an ack alone 1 s (--ack-delay-ms) after the first
            // unacknowledged message unless a call took it along before (each page on its own
            // clock, not every page at the same tick).
            if firstUnackedAt == nil { firstUnackedAt = now }
            if !ackScheduled {
                ackScheduled = true
                worker.scheduleAck(self, afterMs: worker.options.ackDelayMs)
            }
        }
        if ackDue || !outbox.isEmpty { wantWrite() }
    }

    private func handle(_ m: ServerMessageView, scanner: ServerMessageScanner, now: UInt64) {
        switch m.type {
        case .welcome:
            if let t = m.token { token = Array(scanner.slice(t)) }
            welcomed(resumed: m.resumed, now: now)
        case .ret:
            guard fresh(m.seq) else { return }
            returned(m, scanner: scanner, now: now)
        case .cb:
            guard fresh(m.seq) else { return }
            callback(m, scanner: scanner, now: now)
        case .invoke:
            guard fresh(m.seq) else { return }
            invoked(m, scanner: scanner, now: now)
        case .hb:
            break
        case .other:
            worker.recordError("client.unknownMessage")
        }
    }

    /// Whether `seq` is new (a replayed message after a resume is not); counts it.
    private func fresh(_ seq: Int64) -> Bool {
        guard seq > highestSeq else { return false }
        highestSeq = seq
        if worker.counting { worker.stats.messages += 1 }
        return true
    }

    private func returned(_ m: ServerMessageView, scanner: ServerMessageScanner, now: UInt64) {
        guard let entry = pending.find(m.id) else {
            worker.recordError("client.retForUnknownCall")
            return
        }
        if m.code != 0 {
            pending.remove(m.id)
            worker.recordError("ret." + kindName(m, scanner))
            failed(entry, now: now)
            return
        }
        if entry.kind != .progress { pending.remove(m.id) }
        answered(entry, now: now)
    }

    private func callback(_ m: ServerMessageView, scanner: ServerMessageScanner, now: UInt64) {
        guard let stub = m.stub, let id = Self.callID(fromStub: scanner.slice(stub)), let entry = pending.find(id) else {
            worker.recordError("client.cbForUnknownStub")
            return
        }
        if m.hasError || m.cancelled {
            worker.recordError(m.cancelled ? "cb.cancelled" : "cb." + kindName(m, scanner))
        }
        progressDelivered(entry, final: m.complete, now: now)
        if m.complete { pending.remove(id) }
    }

    private func invoked(_ m: ServerMessageView, scanner: ServerMessageScanner, now: UInt64) {
        let kind: AnswerKind
        var madeAt = now
        if scanner.equals(m.method, "bench.answer") {
            kind = .registered
            if var head = triggers.first {
                madeAt = head.madeAt
                head.remaining -= 1
                if head.remaining <= 0 { triggers.removeFirst() } else { triggers[0] = head }
            }
        } else if scanner.equals(m.method, "_hasJavascriptMethod") {
            var known = false
            if let args = m.args {
                let a = scanner.slice(args)
                known = Self.contains(a, "\"bench.answer\"")
            }
            kind = .hasMethod(known)
        } else {
            kind = .unknown
        }
        outbox.append(.answer(callbackId: m.callbackId, kind: kind, madeAt: madeAt))
    }

    private func kindName(_ m: ServerMessageView, _ scanner: ServerMessageScanner) -> String {
        guard let k = m.errorKind else { return "error" }
        return String(decoding: scanner.slice(k), as: UTF8.self)
    }

    /// `dscbN` → N.
    static func callID(fromStub stub: UnsafeRawBufferPointer) -> Int64? {
        guard stub.count > 4, stub[0] == UInt8(ascii: "d"), stub[1] == UInt8(ascii: "s"), stub[2] == UInt8(ascii: "c"),
            stub[3] == UInt8(ascii: "b")
        else { return nil }
        var value: Int64 = 0
        for b in stub[4...] {
            guard b >= 0x30, b <= 0x39 else { return nil }
            value = value &* 10 &+ Int64(b - 0x30)
        }
        return value
    }

    static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: StaticString) -> Bool {
        let n = needle.utf8CodeUnitCount
        guard haystack.count >= n else { return false }
        let lit = UnsafeRawBufferPointer(start: needle.utf8Start, count: n)
        outer: for start in 0...(haystack.count - n) {
            for k in 0..<n where haystack[start + k] != lit[k] { continue outer }
            return true
        }
        return false
    }

    // MARK: writing

    override func writeable() -> Int32 {
        if closeRequested != nil { return closeIfRequested() }
        guard let wsi else { return 0 }
        if worker.options.coalesce { return writeBatch(wsi) }
        var budget = 64
        while budget > 0 {
            var c = worker.composer()
            guard compose(into: &c) else { break }
            guard !c.overflowed else {
                worker.recordError("client.frameTooLarge")
                continue
            }
            guard worker.write(wsi, c) else { return -1 }
            budget -= 1
            if !(ackDue || !outbox.isEmpty) { return 0 }
            if lws_send_pipe_choked(wsi) != 0 { break }
        }
        if ackDue || !outbox.isEmpty { lws_callback_on_writable(wsi) }
        return 0
    }

    /// `--coalesce`: everything due goes out in one frame, a batch when there is more than
    /// one message (as web/dsbridge.js sends what a page queued in one microtask).
    private func writeBatch(_ wsi: OpaquePointer) -> Int32 {
        // --piggyback-acks: an ack due goes first in the batch that carries the next calls.
        if worker.options.piggybackAcks, ready, highestSeq > ackedSeq, !outbox.isEmpty { ackDue = true }
        var c = worker.composer(offset: 1)
        var count = 0
        while ackDue || !outbox.isEmpty, count < ClientWorker.coalescedMessages,
            c.count + worker.messageBound <= worker.scratchCapacity - 1
        {
            if count > 0 { c.byte(UInt8(ascii: ",")) }
            _ = compose(into: &c)
            count += 1
        }
        guard count > 0 else { return 0 }
        guard !c.overflowed else {
            worker.recordError("client.frameTooLarge")
            return 0
        }
        if count > 1 {
            c.byte(UInt8(ascii: "]"))
            worker.prefix(UInt8(ascii: "["))
            guard worker.write(wsi, c, offset: 1) else { return -1 }
        } else {
            // One message alone: written from the composer's start, past the free byte.
            guard worker.writeAlone(wsi, c) else { return -1 }
        }
        if ackDue || !outbox.isEmpty { lws_callback_on_writable(wsi) }
        return 0
    }

    override func phaseChanged(_ phase: RunPhase) {
        followPhase(phase)
    }

    override func ended(error: String?) {
        reconnectIfCycling(error: error)
    }

    override var isPacing: Bool { pacing }

    override func pacedCallDue(now: UInt64) { callPaced(now: now) }

    /// The ack scheduled by ``received(_:)`` is due.
    func ackTimerFired() {
        ackScheduled = false
        guard ready, highestSeq > ackedSeq else { return }
        let delay = worker.options.ackDelayMs * 1_000_000
        if let first = firstUnackedAt, case let waited = monotonicNanos() &- first, waited < delay {
            // An ack went with a call meanwhile: the timer counts from the oldest message since.
            ackScheduled = true
            worker.scheduleAck(self, afterMs: (delay - waited) / 1_000_000 + 1)
            return
        }
        ackDue = true
        wantWrite()
    }

    override func tick(now: UInt64) {
        // Without the worker's timer: at most a second late, swept once a second.
        if !worker.schedulesAcks, ready, highestSeq > ackedSeq, now &- lastAckAt >= 900_000_000 {
            ackDue = true
            wantWrite()
        }
    }
}

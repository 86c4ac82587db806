// SPDX-License-Identifier: MIT
import CLibWebSockets

/// A plain WebSocket client of the C echo server (`bench/lws-echo.c`, subprotocol
/// `lws-echo`): keeps `inFlight` text frames of `payloadBytes` outstanding and times each
/// echo; echoes come back in order, so send times are a FIFO (worker thread).
final class EchoClient: Link {
    private var sentAt: [UInt64]
    private let mask: Int
    private var head = 0
    private var tail = 0
    private var outstanding = 0
    private var toSend = 0
    private var checking = false

    override init(worker: ClientWorker) {
        var size = 16
        while size < worker.options.inFlight * 2 { size <<= 1 }
        sentAt = Array(repeating: 0, count: size)
        mask = size - 1
        super.init(worker: worker)
    }

    override var subprotocol: StaticString? { "lws-echo" }

    override func connected() {
        markReady()
        if worker.phase == .stop {
            requestClose()
        } else if worker.options.scenario == .paced {
            worker.startPacing(self)
        } else {
            fill()
        }
    }

    override var isPacing: Bool { ready && closeRequested == nil }

    override func pacedCallDue(now: UInt64) {
        guard worker.loadRuns, outstanding < Self.pacedInFlightCap, outstanding < sentAt.count else { return }
        enqueue(now)
        wantWrite()
    }

    private func fill() {
        guard ready, closeRequested == nil, worker.loadRuns, worker.options.scenario == .echo else { return }
        let want = worker.options.inFlight - outstanding
        guard want > 0 else { return }
        let now = monotonicNanos()
        for _ in 0..<want { enqueue(now) }
        wantWrite()
    }

    /// Queues one frame, timed from now (when the bench decided to send it, as pages do).
    private func enqueue(_ now: UInt64) {
        sentAt[tail & mask] = now
        tail &+= 1
        outstanding += 1
        toSend += 1
    }

    override func received(_ bytes: UnsafeRawBufferPointer) {
        let now = monotonicNanos()
        guard outstanding > 0 else {
            worker.recordError("client.unexpectedEcho")
            return
        }
        let t = sentAt[head & mask]
        head &+= 1
        outstanding -= 1
        if checking {
            checking = false
            worker.checked += 1
            worker.stats.checked += 1
            worker.stats.sample(now &- t)
            return
        }
        if worker.counting {
            worker.stats.messages += 1
            worker.stats.calls += 1
        }
        worker.recordOperation(sentAt: t, now: now)
        fill()
    }

    override func writeable() -> Int32 {
        if closeRequested != nil { return closeIfRequested() }
        guard let wsi else { return 0 }
        while toSend > 0 {
            var c = worker.composer()
            c.raw(worker.payload)
            guard worker.write(wsi, c) else { return -1 }
            toSend -= 1
            if toSend > 0, lws_send_pipe_choked(wsi) != 0 {
                lws_callback_on_writable(wsi)
                break
            }
        }
        return 0
    }

    override func phaseChanged(_ phase: RunPhase) {
        switch phase {
        case .warmup, .measure:
            fill()
        case .check:
            if ready, outstanding == 0 {
                checking = true
                enqueue(monotonicNanos())
                wantWrite()
            }
        case .stop:
            requestClose()
        case .opening:
            break
        }
    }
}

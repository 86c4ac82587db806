// SPDX-License-Identifier: MIT
import CLibWebSockets

/// One client connection of a worker (worker thread only). Subclasses speak a protocol
/// over it: the DSBridge page protocol, plain echo, or HTTP/1.1 on a raw socket. The lws
/// callbacks (`LWSClientCallbacks.swift`) call these methods; everything they write goes
/// out from ``writeable()``, never from another callback.
class Link {
    /// The worker-local id, carried as the wsi's opaque user data.
    var id = 0
    var wsi: OpaquePointer?
    unowned let worker: ClientWorker
    /// When the connection attempt started (monotonic ns).
    var openedAt: UInt64 = 0
    /// The TCP (and WebSocket) connection is up.
    var established = false
    /// Ready for load (page: welcomed; echo: established; http: session made).
    var ready = false
    /// A close the bench decided, performed from WRITEABLE.
    var closeRequested: UInt16?
    /// The close code the server sent, if it closed first.
    var peerCloseCode: Int?
    /// A WebSocket message arriving in several RECEIVE callbacks, being reassembled.
    var rxBytes: [UInt8] = []
    var rxAssembling = false

    /// `paced`: calls a link leaves unanswered at most (a stalled server is not buried).
    static let pacedInFlightCap = 16

    init(worker: ClientWorker) {
        self.worker = worker
    }

    /// The subprotocol offered in the upgrade (`nil`: a raw socket).
    var subprotocol: StaticString? { nil }

    // MARK: lws events (overridden)

    /// The connection is up.
    func connected() {}
    /// A whole WebSocket message, or (raw sockets) a chunk of bytes.
    func received(_ bytes: UnsafeRawBufferPointer) {}
    /// Writes what is due; returns -1 to close.
    func writeable() -> Int32 { closeIfRequested() }
    /// The connection is gone (`error`: it never opened or failed).
    func ended(error: String?) {}
    /// The run moved to another phase.
    func phaseChanged(_ phase: RunPhase) {}
    /// Once a second.
    func tick(now: UInt64) {}
    /// `paced`: the link is open and keeps its place in the schedule.
    var isPacing: Bool { false }
    /// `paced`: the link's next call is due.
    func pacedCallDue(now: UInt64) {}

    // MARK: helpers

    /// Asks for a WRITEABLE callback.
    func wantWrite() {
        if let wsi { lws_callback_on_writable(wsi) }
    }

    /// Closes with `code` from the next WRITEABLE.
    func requestClose(_ code: UInt16 = 1000) {
        if closeRequested == nil { closeRequested = code }
        wantWrite()
    }

    /// In WRITEABLE: performs a requested close (-1), else 0.
    func closeIfRequested() -> Int32 {
        guard let code = closeRequested, let wsi else { return 0 }
        if subprotocol != nil {
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), nil, 0)
        }
        return -1
    }

    /// Marks the link ready (counted once).
    func markReady() {
        guard !ready else { return }
        ready = true
        worker.readyCount += 1
    }
}

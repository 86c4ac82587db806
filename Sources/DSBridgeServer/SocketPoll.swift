// SPDX-License-Identifier: MIT
import CLibWebSockets

/// What a ``SocketPoll`` reports its socket's events to without a closure (a closure's
/// context is retained and released around every call).
protocol SocketEventTarget: AnyObject {
    /// The socket is readable (an error counts as readable: the read fails) or writable.
    func socketEvent(readable: Bool, writable: Bool)
}

/// A libuv poll handle on one socket of the service thread: asks for readability and
/// writability, reports them to ``target`` (or ``onEvent``), and frees itself once libuv
/// has closed it (service thread only). `uv_poll_init` makes the socket non-blocking.
final class SocketPoll {
    private let handle: UnsafeMutablePointer<uv_poll_t>
    /// The events polled for now (`UV_READABLE` / `UV_WRITABLE`).
    private var events: Int32 = 0
    private var closed = false
    /// Called when the socket is readable (an error counts as readable: the read fails)
    /// or writable. Set once by the owner right after creation.
    var onEvent: (_ readable: Bool, _ writable: Bool) -> Void = { _, _ in }
    /// Gets the events instead of ``onEvent`` when set. unowned(unsafe): the target owns
    /// this poll and outlives it; ``close()`` clears it before the target can go.
    unowned(unsafe) var target: (any SocketEventTarget)?

    /// `nil` when libuv cannot watch `fd` (the caller still owns the descriptor then).
    init?(loop: UnsafeMutablePointer<uv_loop_t>, fd: Int32) {
        let handle = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
        guard uv_poll_init(loop, handle, fd) == 0 else {
            handle.deallocate()
            return nil
        }
        self.handle = handle
        // Kept alive by libuv's handle until its close callback.
        handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
    }

    /// Polls for input and/or output; nothing asked stops polling. libuv re-arms epoll only
    /// when the set changes.
    func poll(readable: Bool, writable: Bool) {
        guard !closed else { return }
        var wanted: Int32 = 0
        if readable { wanted |= Int32(UV_READABLE.rawValue) }
        if writable { wanted |= Int32(UV_WRITABLE.rawValue) }
        guard wanted != events else { return }
        events = wanted
        if wanted == 0 {
            uv_poll_stop(handle)
            return
        }
        uv_poll_start(handle, wanted) { handle, status, events in
            guard let data = handle?.pointee.data else { return }
            let poll = Unmanaged<SocketPoll>.fromOpaque(data).takeUnretainedValue()
            let readable = status < 0 || events & Int32(UV_READABLE.rawValue) != 0
            let writable = status < 0 || events & Int32(UV_WRITABLE.rawValue) != 0
            if let target = poll.target {
                target.socketEvent(readable: readable, writable: writable)
            } else {
                poll.onEvent(readable, writable)
            }
        }
    }

    /// Stops polling for good; the handle is freed once libuv has closed it. The socket
    /// itself stays open (its owner closes it, or hands it on).
    func close() {
        guard !closed else { return }
        closed = true
        onEvent = { _, _ in }
        target = nil
        uv_poll_stop(handle)
        uv_close(UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_handle_t.self)) { handle in
            guard let handle else { return }
            if let data = handle.pointee.data { Unmanaged<SocketPoll>.fromOpaque(data).release() }
            UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_poll_t.self).deallocate()
        }
    }
}

// SPDX-License-Identifier: MIT
import CLibWebSockets

/// A libuv poll handle on one socket of the service thread, kept inline in the object that
/// gets its events (its `owner`: the handle's `data` points at it, unretained). Asks for
/// readability and writability; ``close()`` detaches the owner and frees the handle once
/// libuv has closed it. `uv_poll_init` makes the socket non-blocking.
///
/// A value, not an object of its own: with thousands of sockets each active now and then,
/// every object an event goes through is a cache miss (a separate poll object was one more
/// per event, and a retain). The owner must call ``close()`` before it goes (its `deinit`
/// does, as a last resort), so libuv never reports to a freed owner.
struct PollHandle {
    private let handle: UnsafeMutablePointer<uv_poll_t>
    /// The events polled for now (`UV_READABLE` / `UV_WRITABLE`); `-1` once closed.
    private var events: Int32 = 0

    /// `nil` when libuv cannot watch `fd` (the caller still owns the descriptor then).
    init?(loop: UnsafeMutablePointer<uv_loop_t>, fd: Int32) {
        let handle = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
        guard uv_poll_init(loop, handle, fd) == 0 else {
            handle.deallocate()
            return nil
        }
        handle.pointee.data = nil
        self.handle = handle
    }

    /// Where events go: `callback` gets `owner` back from the handle's `data`.
    func attach(_ owner: AnyObject) {
        handle.pointee.data = Unmanaged.passUnretained(owner).toOpaque()
    }

    /// Polls for input and/or output (nothing asked stops polling), calling `callback` on
    /// events. libuv re-arms epoll only when the set changes; so does this.
    mutating func poll(readable: Bool, writable: Bool, callback: uv_poll_cb) {
        var wanted: Int32 = 0
        if readable { wanted |= Int32(UV_READABLE.rawValue) }
        if writable { wanted |= Int32(UV_WRITABLE.rawValue) }
        guard events >= 0, wanted != events else { return }
        events = wanted
        if wanted == 0 {
            uv_poll_stop(handle)
        } else {
            uv_poll_start(handle, wanted, callback)
        }
    }

    /// Stops polling for good and detaches the owner; the handle is freed once libuv has
    /// closed it. The socket itself stays open (its owner closes it, or hands it on).
    mutating func close() {
        guard events >= 0 else { return }
        events = -1
        handle.pointee.data = nil
        uv_poll_stop(handle)
        uv_close(UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_handle_t.self)) { handle in
            guard let handle else { return }
            UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_poll_t.self).deallocate()
        }
    }

    /// What a callback was told: readable (an error counts as readable: the read fails)
    /// and writable, and the owner, unless the handle was closed meanwhile.
    static func event(
        _ handle: UnsafeMutablePointer<uv_poll_t>?, _ status: Int32, _ events: Int32
    ) -> (owner: UnsafeMutableRawPointer, readable: Bool, writable: Bool)? {
        guard let owner = handle?.pointee.data else { return nil }
        let readable = status < 0 || events & Int32(UV_READABLE.rawValue) != 0
        let writable = status < 0 || events & Int32(UV_WRITABLE.rawValue) != 0
        return (owner, readable, writable)
    }
}

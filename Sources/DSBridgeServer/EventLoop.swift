// SPDX-License-Identifier: MIT
import CLibWebSockets
import UVLoopTimer

/// Why the service thread's event loop could not be set up.
enum EventLoopError: Error {
    /// `uv_loop_init` (or a handle's init) failed with this libuv error code.
    case libuv(Int32)
}

/// The libuv loop the service thread runs. libwebsockets is attached to it as a *foreign*
/// loop (it watches its sockets with epoll through libuv and installs no signal handlers);
/// dsbridged adds three handles of its own:
/// - a prepare handle: work done once per loop pass, just before it waits;
/// - one timer (a ``LoopTimer``), armed at the earliest deadline of the loop's ``DeadlineQueue``;
/// - an async handle: the wake other threads use (``ServiceWakeHandle``).
///
/// Used only on the service thread, except ``wakeHandle``.
final class EventLoop {
    let loop: UnsafeMutablePointer<uv_loop_t>
    private let prepare: UnsafeMutablePointer<uv_prepare_t>
    private let timer: LoopTimer
    private let async: UnsafeMutablePointer<uv_async_t>
    /// Runs before each wait.
    var onPrepare: () -> Void = {}
    /// Runs when the timer fires.
    var onTimer: () -> Void {
        get { timer.onFire }
        set { timer.onFire = newValue }
    }
    /// Runs after another thread woke the loop.
    var onWake: () -> Void = {}
    private var closed = false

    init() throws(EventLoopError) {
        loop = .allocate(capacity: 1)
        let status = uv_loop_init(loop)
        guard status == 0 else {
            loop.deallocate()
            throw .libuv(status)
        }
        prepare = .allocate(capacity: 1)
        async = .allocate(capacity: 1)
        timer = LoopTimer(loop: loop)
        let me = Unmanaged.passUnretained(self).toOpaque()
        uv_prepare_init(loop, prepare)
        uv_async_init(loop, async) { handle in
            guard let data = handle?.pointee.data else { return }
            Unmanaged<EventLoop>.fromOpaque(data).takeUnretainedValue().onWake()
        }
        prepare.pointee.data = me
        async.pointee.data = me
        uv_prepare_start(prepare) { handle in
            guard let data = handle?.pointee.data else { return }
            Unmanaged<EventLoop>.fromOpaque(data).takeUnretainedValue().onPrepare()
        }
    }

    /// The loop's clock in milliseconds (cached at each pass: no system call).
    var now: UInt64 { uv_now(loop) }

    /// The handle other threads wake the loop with.
    var wakeHandle: ServiceWakeHandle { ServiceWakeHandle(async: async) }

    /// Arms the timer at `deadline` (loop clock), or stops it for `nil`. Re-arming at the
    /// same deadline costs nothing.
    func setTimer(deadline: UInt64?) { timer.set(deadline: deadline) }

    /// Runs until ``stop()``.
    func run() { uv_run(loop, UV_RUN_DEFAULT) }

    /// Makes ``run()`` return after the current pass.
    func stop() { uv_stop(loop) }

    /// Closes the loop's own handles, runs the loop until every handle (libwebsockets'
    /// too, after its context was destroyed) has closed, and frees the loop. Pending
    /// closes finish within a few passes; `lingerPasses` bounds the wait.
    func close(afterEachPass: () -> Void = {}) {
        guard !closed else { return }
        closed = true
        uv_prepare_stop(prepare)
        uv_close(UnsafeMutableRawPointer(prepare).assumingMemoryBound(to: uv_handle_t.self), nil)
        timer.close()
        uv_close(UnsafeMutableRawPointer(async).assumingMemoryBound(to: uv_handle_t.self), nil)
        // lws' own handles close asynchronously; a pass with nothing left returns 0.
        var passes = 0
        while uv_run(loop, UV_RUN_NOWAIT) != 0 && passes < Self.lingerPasses {
            afterEachPass()
            passes += 1
        }
        afterEachPass()
        if uv_loop_close(loop) == 0 {
            loop.deallocate()
        }
        // (A loop that still has handles is leaked rather than freed under them.)
        prepare.deallocate()
        timer.deallocate()
        async.deallocate()
    }

    static let lingerPasses = 10_000
}

/// Wakes the service thread's loop from any thread.
///
/// `@unchecked Sendable` is safe because the only use is `uv_async_send`, which libuv
/// documents as the one thread-safe call on a loop, and only under `ServiceInbox`'s lock
/// while the handle is open (the service thread drops it under that lock before closing it).
struct ServiceWakeHandle: @unchecked Sendable {
    let async: UnsafeMutablePointer<uv_async_t>

    func wake() { uv_async_send(async) }
}

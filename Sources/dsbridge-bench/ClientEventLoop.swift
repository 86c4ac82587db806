// SPDX-License-Identifier: MIT
import CLibWebSockets
import UVLoopTimer

/// Which event loop a worker's libwebsockets context runs on.
enum ClientLoopKind: String, Sendable, Codable, CaseIterable {
    /// lws' own `poll()` loop: every pass walks all of the worker's sockets.
    case poll
    /// libuv (epoll), as a foreign loop the worker owns: a pass costs what is active, and a
    /// timer can wake the worker at a given millisecond (paced calls).
    case uv
}

/// A libuv loop a worker hands to libwebsockets as its foreign loop, with one timer of the
/// worker's own (a ``LoopTimer``; worker thread only).
final class ClientEventLoop {
    let loop: UnsafeMutablePointer<uv_loop_t>
    private let timer: LoopTimer
    /// Runs when the timer fires.
    var onTimer: () -> Void {
        get { timer.onFire }
        set { timer.onFire = newValue }
    }

    /// `nil` when libuv cannot set up a loop.
    init?() {
        loop = .allocate(capacity: 1)
        guard uv_loop_init(loop) == 0 else {
            loop.deallocate()
            return nil
        }
        timer = LoopTimer(loop: loop)
    }

    /// The loop's clock (ms), cached per pass.
    var now: UInt64 { uv_now(loop) }

    /// Fires ``onTimer`` at `deadline` (loop clock, ms), or stops the timer for `nil`.
    func setTimer(at deadline: UInt64?) { timer.set(deadline: deadline) }

    /// One pass: waits for at least one event (a socket, lws' own timers and its cancel
    /// pipe, or the worker's timer), handles what is ready, and returns.
    func runOnce() { uv_run(loop, UV_RUN_ONCE) }

    /// After `lws_context_destroy`: closes the timer, lets lws' handles finish closing
    /// (calling `afterEachPass`, which destroys the context a second time as lws expects on
    /// a foreign loop), and frees the loop.
    func close(afterEachPass: () -> Void) {
        timer.close()
        var passes = 0
        while uv_run(loop, UV_RUN_NOWAIT) != 0 && passes < 10_000 {
            afterEachPass()
            passes += 1
        }
        afterEachPass()
        if uv_loop_close(loop) == 0 { loop.deallocate() }
        timer.deallocate()
    }
}

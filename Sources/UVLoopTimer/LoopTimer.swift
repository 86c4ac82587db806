// SPDX-License-Identifier: MIT
import CLibWebSockets

/// One libuv timer on a loop, fired once at a deadline of the loop's clock (milliseconds):
/// the service thread's deadline timer (`EventLoop`) and a bench worker's (`ClientEventLoop`).
///
/// It owns its `uv_timer_t`. Used only on the thread that runs its loop. To end it: ``close()``
/// before the loop's last passes (libuv finishes a close on the next pass), then
/// ``deallocate()`` once the loop has run them.
package final class LoopTimer {
    private let handle: UnsafeMutablePointer<uv_timer_t>
    private let loop: UnsafeMutablePointer<uv_loop_t>
    /// Runs when the timer fires.
    package var onFire: () -> Void = {}
    /// Where the timer is armed (`nil`: stopped).
    private var armedAt: UInt64?
    private var closed = false

    /// A stopped timer on `loop` (initialised: `loop` must be).
    package init(loop: UnsafeMutablePointer<uv_loop_t>) {
        self.loop = loop
        handle = .allocate(capacity: 1)
        uv_timer_init(loop, handle)
        handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    /// Fires ``onFire`` at `deadline` (the loop's clock, ms; at once if it has passed), or
    /// stops the timer for `nil`. Setting the deadline it is armed at costs nothing.
    package func set(deadline: UInt64?) {
        guard deadline != armedAt else { return }
        armedAt = deadline
        guard let deadline else {
            uv_timer_stop(handle)
            return
        }
        let current = uv_now(loop)
        uv_timer_start(
            handle,
            { handle in
                guard let data = handle?.pointee.data else { return }
                let timer = Unmanaged<LoopTimer>.fromOpaque(data).takeUnretainedValue()
                timer.armedAt = nil
                timer.onFire()
            }, deadline > current ? deadline - current : 0, 0)
    }

    /// Stops the timer and closes its handle (libuv finishes on the loop's next pass).
    package func close() {
        guard !closed else { return }
        closed = true
        uv_timer_stop(handle)
        uv_close(UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_handle_t.self), nil)
    }

    /// Frees the handle: after ``close()`` and the loop's last pass.
    package func deallocate() {
        handle.deallocate()
    }
}

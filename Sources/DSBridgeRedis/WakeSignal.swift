// SPDX-License-Identifier: MIT
import CHiredis

#if canImport(Glibc)
import Glibc
#endif

/// An eventfd that wakes a Redis thread out of `poll`: any thread signals, the owning thread
/// polls ``fd`` and drains it.
///
/// Sendable: its only state is the descriptor, fixed for its life and closed in `deinit`,
/// when no thread can hold it any more; `write`/`read` on an eventfd are atomic.
final class WakeSignal: Sendable {
    /// The eventfd (non-blocking, close-on-exec), or -1 when none could be made (then the
    /// thread only notices a wake at its next poll timeout; see ``PollWait``).
    let fd: Int32

    init() {
        fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Wakes the thread polling ``fd``. Any thread.
    func signal() {
        guard fd >= 0 else { return }
        var one: UInt64 = 1
        _ = write(fd, &one, MemoryLayout<UInt64>.size)
    }

    /// Clears the pending wakes. The owning thread.
    func drain() {
        guard fd >= 0 else { return }
        var count: UInt64 = 0
        _ = read(fd, &count, MemoryLayout<UInt64>.size)
    }
}

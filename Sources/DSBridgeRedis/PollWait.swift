// SPDX-License-Identifier: MIT
import CHiredis

#if canImport(Glibc)
import Glibc
#endif

/// One `poll(2)` on a connection's socket and a ``WakeSignal``, with a timeout. Callers
/// re-check their state after every return (a return can be early, see ``sliceMs``).
enum PollWait {
    /// What woke the thread.
    struct Events {
        /// The socket is readable, or closed or failed (`POLLIN`, `POLLHUP`, `POLLERR`).
        var readable = false
        /// The socket is writable (or failed).
        var writable = false
        /// The wake signal was raised (and has been drained).
        var woken = false
    }

    /// The longest wait when the wake signal has no eventfd: the thread then notices a stop
    /// within this time.
    static let sliceMs = 100

    /// Waits until `socket` (if not -1) is readable (and, with `writable`, writable), `wake`
    /// is signalled, or `timeoutMs` has passed (-1: no limit). Retries after EINTR.
    static func wait(socket: Int32, readable: Bool = true, writable: Bool = false, wake: WakeSignal, timeoutMs: Int) -> Events {
        var timeout = timeoutMs
        if wake.fd < 0 { timeout = timeout < 0 ? sliceMs : min(timeout, sliceMs) }
        let deadline = ContinuousClock.now + .milliseconds(max(timeout, 0))
        var fds = [
            pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: socket, events: Int16((readable ? POLLIN : 0) | (writable ? POLLOUT : 0)), revents: 0),
        ]
        while poll(&fds, nfds_t(socket >= 0 ? 2 : 1), Int32(clamping: timeout)) < 0 {
            guard CHiredis_errno() == EINTR else { return Events() }
            if timeout >= 0 { timeout = milliseconds(until: deadline) }
        }
        var events = Events()
        if fds[0].revents != 0 {
            wake.drain()
            events.woken = true
        }
        let socketEvents = Int32(fds[1].revents)
        events.readable = socket >= 0 && readable && socketEvents & (POLLIN | POLLHUP | POLLERR) != 0
        events.writable = socket >= 0 && writable && socketEvents & (POLLOUT | POLLHUP | POLLERR) != 0
        return events
    }

    /// The milliseconds from now until `deadline`, rounded up; 0 when it has passed.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        return Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}

// SPDX-License-Identifier: MIT
import CLibWebSockets
import DSBridge

/// What a deadline in the service loop's queue stands for.
enum TimerSubject {
    /// A WebSocket's deadline (``WebSocketConnectionMachine/deadline``).
    case socket(UInt64)
    /// A drain's periodic check.
    case drain
    /// The page listener's pause ends (``AcceptGate/retryAt``).
    case acceptRetry
    /// The admin listener's pause (a failing `accept`) ends.
    case adminAcceptRetry
    /// A plain-HTTP connection's next deadline (ServiceLoop+PlainHTTP).
    case plain(UInt64)
}

/// Timers of the service thread: one libuv timer at the earliest entry of a heap of
/// deadlines. Nothing here walks every socket; a socket costs one heap entry per
/// `heartbeat` period, whatever it sends.
extension ServiceLoop {
    /// The loop's clock in milliseconds (no system call).
    var loopNow: UInt64 { eventLoop?.now ?? 0 }

    /// Queues a connection's deadline `next` as `subject`, unless an entry at or before it is
    /// queued already (`armed`, kept by the connection): every connection deadline is armed
    /// this way, one entry per connection at a time (a later one is queued when the earlier
    /// entry comes due). `.max`: none.
    func armConnectionDeadline(_ subject: TimerSubject, at next: UInt64, armed: inout UInt64?) {
        guard next != .max else { return }
        if let queued = armed, queued <= next { return }
        armed = next
        deadlines.schedule(subject, at: next)
    }

    /// The loop's timer fired: handles every entry due.
    func deadlinesDue() {
        let now = loopNow
        // How late the timer ran its earliest entry (the loop clock is cached per pass and
        // in milliseconds, so this is accurate to about a millisecond).
        if let earliest = deadlines.earliest, now > earliest {
            LoopLag.record(nanoseconds: (now - earliest) * 1_000_000)
        }
        while let (subject, deadline) = deadlines.popDue(now: now) {
            switch subject {
            case .socket(let id):
                socketDeadlineDue(id, deadline: deadline, now: now)
            case .drain:
                drainStep(now: now)
            case .acceptRetry:
                acceptRetryDue(now: now)
            case .adminAcceptRetry:
                adminAcceptRetryDue(now: now)
            case .plain(let id):
                plainDeadlineDue(id, deadline: deadline, now: now)
            }
        }
        eventLoop?.setTimer(deadline: deadlines.earliest)
    }
}

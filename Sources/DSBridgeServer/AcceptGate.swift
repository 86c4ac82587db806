// SPDX-License-Identifier: MIT
import Glibc

/// When the page listener accepts connections (PROTOCOL.md 2.6), as a pure state machine
/// on a millisecond clock: it pauses when descriptors run short and resumes when some close
/// or after ``retryMs``, and it rate-limits its log lines (one a second, with counts).
///
/// Descriptors run short when a new connection's descriptor number reaches the threshold
/// (the kernel hands out the lowest free number, so every lower one is in use), or when
/// `accept` fails for lack of descriptors or memory. While paused, new connections wait in
/// the listen backlog; nothing spins. A pause ends only when a probe (the lowest free
/// descriptor number, from `dup`) shows room below the threshold: after a connection
/// closed, or every ``retryMs`` (something else may have freed descriptors).
struct AcceptGate: Equatable {
    /// What the listener does after an event.
    enum Decision: Equatable {
        /// Keep accepting.
        case proceed
        /// Stop watching the listening socket; retry at ``AcceptGate/retryAt`` at the latest.
        case pause
        /// Watch the listening socket again.
        case resume
        /// Find the lowest free descriptor number and report it to ``probed(lowestFree:now:)``.
        case probe
        /// Nothing more to accept for now (`EAGAIN`).
        case drained
    }

    /// Descriptor numbers at or above this mean the reserve is reached.
    let threshold: Int
    /// How long a pause lasts at most when no connection closes (descriptors may be freed
    /// by something else, e.g. a static file closed).
    static let retryMs: UInt64 = 100
    /// At most one log line per this many milliseconds.
    static let logIntervalMs: UInt64 = 1_000

    private(set) var paused = false
    /// When a pause ends by itself (loop clock, ms).
    private(set) var retryAt: UInt64?
    /// Pauses since start (a metric).
    private(set) var pauses = 0
    /// Pauses not logged yet (reported with the next line).
    private(set) var unloggedPauses = 0
    private var lastLogAt: UInt64?

    init(threshold: Int) {
        self.threshold = threshold
    }

    /// A connection was accepted on descriptor `fd` (and handed over).
    mutating func accepted(fd: Int32, now: UInt64) -> Decision {
        guard Int(fd) >= threshold else { return .proceed }
        return pause(now: now)
    }

    /// `accept` failed with `error` (an errno value).
    mutating func acceptFailed(errno error: Int32, now: UInt64) -> Decision {
        switch error {
        case EAGAIN, EWOULDBLOCK:
            return .drained
        case EMFILE, ENFILE, ENOBUFS, ENOMEM:
            return pause(now: now)
        default:
            // The peer went away before we took it (ECONNABORTED, EPROTO, ...), or a
            // signal: try the next one.
            return .proceed
        }
    }

    /// A connection of the page listener closed: a descriptor may be free again.
    func connectionClosed() -> Decision {
        paused ? .probe : .proceed
    }

    /// The retry deadline came: probe if still paused.
    func retryDue(now: UInt64) -> Decision {
        guard paused, let at = retryAt, now >= at else { return .proceed }
        return .probe
    }

    /// The lowest free descriptor number is `fd`: resume when it is below the threshold,
    /// else stay paused and retry later.
    mutating func probed(lowestFree fd: Int32, now: UInt64) -> Decision {
        guard paused else { return .proceed }
        guard Int(fd) < threshold else {
            retryAt = now + Self.retryMs
            return .pause
        }
        paused = false
        retryAt = nil
        return .resume
    }

    /// The line to log now about pauses, if one is due (at most one a second); `nil` else.
    mutating func logLine(now: UInt64, openDescriptorsAtLeast: Int, limit: Int) -> String? {
        guard unloggedPauses > 0 else { return nil }
        if let last = lastLogAt, now < last + Self.logIntervalMs { return nil }
        lastLogAt = now
        let count = unloggedPauses
        unloggedPauses = 0
        return "page listener paused \(count) time(s) since the last report: descriptors in use reached "
            + "\(openDescriptorsAtLeast) of the limit \(limit) (\(limit - threshold) kept for the admin listener and HTTP); "
            + "new connections wait in the listen backlog until some close (\(pauses) pauses since start)"
    }

    private mutating func pause(now: UInt64) -> Decision {
        if !paused {
            paused = true
            pauses += 1
            unloggedPauses += 1
        }
        retryAt = now + Self.retryMs
        return .pause
    }
}

// SPDX-License-Identifier: MIT
import Glibc

/// How many file descriptors the daemon runs with (PROTOCOL.md 2.6), as pure arithmetic.
///
/// Each page session holds one descriptor, so the soft `RLIMIT_NOFILE` bounds the sessions
/// one daemon can hold: a shell's default of 1,024 would cap a daemon configured for
/// 100,000 sessions at about 1,000. At start the soft limit is raised to the hard limit —
/// but not past what the configuration can use (`maxSessions` + the reserve + room for
/// HTTP requests), because libwebsockets 4.1 sizes its descriptor table from the soft
/// limit and walks that whole table each time a connection closes (a debug check compiled
/// into Debian's build): with a hard limit of 1,048,576 every close would scan 8 MiB.
public struct DescriptorLimit: Sendable, Equatable {
    /// Descriptors kept free for the admin listener, HTTP requests and files: accepting on
    /// the page port stops while fewer than this are left.
    public static let reserve = 128
    /// Room for sync HTTP requests and browsers' extra connections beside the sessions.
    public static let httpAllowance = 1_024

    /// The soft limit to run with.
    public let soft: Int
    /// The hard limit found.
    public let hard: Int
    /// The soft limit found at start.
    public let previousSoft: Int
    /// Accepting on the page port pauses once a new connection's descriptor is at or above
    /// this number (the kernel hands out the lowest free number, so every lower one is in use).
    public var acceptThreshold: Int { max(0, soft - Self.reserve) }
    /// Sessions that fit (each holds one descriptor): as many as are accepted.
    public var sessionCapacity: Int { acceptThreshold }

    /// Plans the limits for `maxSessions` given the process' current limits: the soft limit
    /// becomes `min(hard, maxSessions + reserve + httpAllowance)`.
    public init(currentSoft: Int, hard: Int, maxSessions: Int) {
        previousSoft = currentSoft
        self.hard = hard
        soft = min(hard, maxSessions + Self.reserve + Self.httpAllowance)
    }

    /// The most sessions a hard limit of `hard` descriptors holds with the reserve and the
    /// room for HTTP requests left free: `hard - reserve - httpAllowance`. A hard limit too
    /// small for the whole allowance splits what the reserve leaves between sessions and HTTP
    /// (at least 1 session). Planned with this many sessions, the soft limit fits them and
    /// ``warning(maxSessions:)`` says nothing (the daemon's default, PROTOCOL.md 2.6).
    public static func sessionsFitting(hard: Int) -> Int {
        let available = hard - reserve
        return max(1, available - min(httpAllowance, available / 2))
    }

    /// Limits as they are (when the plan could not be applied).
    init(unchangedSoft: Int, hard: Int) {
        previousSoft = unchangedSoft
        soft = unchangedSoft
        self.hard = hard
    }

    /// A warning for the operator when `maxSessions` cannot all be held (nil when they fit).
    public func warning(maxSessions: Int) -> String? {
        guard maxSessions > sessionCapacity else { return nil }
        return "warning: the descriptor limit (ulimit -n: soft \(soft), hard \(hard)) holds about \(sessionCapacity) sessions, "
            + "fewer than --max-sessions \(maxSessions); raise the hard limit (systemd: LimitNOFILE=) to at least "
            + "\(maxSessions + Self.reserve + Self.httpAllowance)"
    }

    /// This process' limits as they are.
    public static func current() -> DescriptorLimit {
        var current = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &current) == 0 else { return DescriptorLimit(unchangedSoft: 1_024, hard: 1_024) }
        let clamp = { (v: rlim_t) in v > rlim_t(Int32.max) ? Int(Int32.max) : Int(v) }
        return DescriptorLimit(unchangedSoft: clamp(current.rlim_cur), hard: clamp(current.rlim_max))
    }

    /// Reads this process' limits, plans, and applies the soft limit (`setrlimit`).
    /// - Returns: the plan applied (the previous soft limit stays if `setrlimit` fails).
    public static func apply(maxSessions: Int) -> DescriptorLimit {
        var current = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &current) == 0 else {
            return DescriptorLimit(unchangedSoft: 1_024, hard: 1_024)
        }
        let clampedHard = current.rlim_max > UInt64(Int32.max) ? Int(Int32.max) : Int(current.rlim_max)
        let plan = DescriptorLimit(currentSoft: Int(current.rlim_cur), hard: clampedHard, maxSessions: maxSessions)
        guard plan.soft != plan.previousSoft else { return plan }
        var wanted = current
        wanted.rlim_cur = rlim_t(plan.soft)
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &wanted) != 0 {
            return DescriptorLimit(unchangedSoft: plan.previousSoft, hard: plan.hard)
        }
        return plan
    }
}

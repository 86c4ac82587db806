// SPDX-License-Identifier: MIT
import Synchronization

/// How many native-initiated calls completed and how many failed, counted from any thread
/// (load tests read them: `test.pushInvokes`, and calls a cluster node made because another
/// node asked it to).
public final class CallOutcomeCounters: Sendable {
    private let counts = Mutex<(completed: Int, failed: Int)>((0, 0))

    public init() {}

    /// Calls that completed.
    public var completed: Int { counts.withLock { $0.completed } }
    /// Calls that failed (the page answered with an error, a timeout, the session ended).
    public var failed: Int { counts.withLock { $0.failed } }

    /// Counts one call's outcome.
    package func record(success: Bool) {
        counts.withLock { c in
            if success { c.completed += 1 } else { c.failed += 1 }
        }
    }
}

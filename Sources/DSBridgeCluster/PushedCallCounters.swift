// SPDX-License-Identifier: MIT
import Synchronization

/// Outcomes of the native-initiated calls a node made because another node asked it to
/// (load tests of calls across nodes).
public final class PushedCallCounters: Sendable {
    private let counts = Mutex<(completed: Int, failed: Int)>((0, 0))

    public var completed: Int { counts.withLock { $0.completed } }
    public var failed: Int { counts.withLock { $0.failed } }

    func record(success: Bool) {
        counts.withLock { c in
            if success { c.completed += 1 } else { c.failed += 1 }
        }
    }
}

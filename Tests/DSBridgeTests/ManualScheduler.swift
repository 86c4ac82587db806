// SPDX-License-Identifier: MIT
import DSBridge
import Synchronization

/// A scheduler whose clock moves only when a test calls `advance`.
final class ManualScheduler: BridgeScheduler {
    private struct Pending: Sendable {
        let due: Int
        let work: @Sendable () -> Void
    }
    private let state = Mutex<(now: Int, pending: [Pending])>((0, []))

    func schedule(afterMilliseconds milliseconds: Int, _ work: @escaping @Sendable () -> Void) {
        state.withLock { $0.pending.append(Pending(due: $0.now + milliseconds, work: work)) }
    }

    var uptimeMilliseconds: Int64 { Int64(state.withLock { $0.now }) }

    /// Moves the clock and runs whatever fell due, in due order.
    func advance(milliseconds: Int) {
        let due = state.withLock { s -> [Pending] in
            s.now += milliseconds
            let ready = s.pending.filter { $0.due <= s.now }.sorted { $0.due < $1.due }
            s.pending.removeAll { $0.due <= s.now }
            return ready
        }
        for p in due { p.work() }
    }
}

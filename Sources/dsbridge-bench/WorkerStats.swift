// SPDX-License-Identifier: MIT
import Histogram

/// What one worker thread measured. Owned by that thread while it runs, then handed to
/// the runner, which merges all of them.
struct WorkerStats: Sendable {
    /// Latency samples in nanoseconds (1 µs ... 60 s, 3 significant digits).
    var latency = Histogram<UInt64>(
        lowestDiscernibleValue: 1_000, highestTrackableValue: 60_000_000_000,
        numberOfSignificantValueDigits: .three)
    /// Headline operations completed while measuring (see ``Scenario/unit``).
    var completed = 0
    /// Calls answered while measuring (for `async`: calls whose final `cb` arrived).
    var calls = 0
    /// Server messages handled while measuring (`ret`, `cb`, `invoke`, echoes, HTTP answers).
    var messages = 0
    /// Errors by kind, over the whole run (warm-up included).
    var errors: [String: Int] = [:]
    /// Close codes the server sent (1006: the connection dropped without a close frame).
    var closeCodes: [Int: Int] = [:]
    /// `idle`: sessions that answered the call made after holding.
    var checked = 0

    mutating func error(_ kind: String) {
        errors[kind, default: 0] += 1
    }

    mutating func closed(_ code: Int) {
        closeCodes[code, default: 0] += 1
    }

    mutating func sample(_ nanoseconds: UInt64) {
        _ = latency.record(max(nanoseconds, 1_000))
    }

    mutating func merge(_ other: WorkerStats) {
        latency.add(other.latency)
        completed += other.completed
        calls += other.calls
        messages += other.messages
        checked += other.checked
        for (k, v) in other.errors { errors[k, default: 0] += v }
        for (k, v) in other.closeCodes { closeCodes[k, default: 0] += v }
    }
}

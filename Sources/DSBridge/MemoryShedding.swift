// SPDX-License-Identifier: MIT

/// Which sessions the memory budget ends (PROTOCOL.md 2.6), as pure arithmetic: while the
/// count is over the budget, the session holding the most bytes first, then the next,
/// until the count is under 90% of the budget or no session left holds more than its fair
/// share (budget ÷ live sessions). A session at or under its share is never chosen.
public enum MemoryShedding {
    /// The bytes below which new sessions are admitted again and shedding stops: 90% of `budget`.
    public static func admissionLimit(budget: Int) -> Int { budget - budget / 10 }

    /// The sessions to end, largest holder first.
    /// - Parameters:
    ///   - holdings: the bytes each live session holds (one entry per live session).
    ///   - total: the daemon-wide count (it may include bytes of no session, e.g. frames
    ///     read before a `hello`).
    ///   - budget: the memory budget in bytes.
    /// - Returns: indices into `holdings`, in the order to end them; empty when `total` is
    ///   not over `budget`.
    public static func victims(holdings: [Int], total: Int, budget: Int) -> [Int] {
        guard total > budget, !holdings.isEmpty else { return [] }
        let stopBelow = admissionLimit(budget: budget)
        let order = holdings.indices.sorted { holdings[$0] > holdings[$1] }
        var count = total
        var live = holdings.count
        var chosen: [Int] = []
        for i in order {
            if count < stopBelow { break }
            // The share grows as sessions end: budget ÷ the sessions still live.
            let share = budget / live
            // Sorted: every later session holds no more than this one.
            if holdings[i] <= share { break }
            chosen.append(i)
            count -= holdings[i]
            live -= 1
        }
        return chosen
    }
}

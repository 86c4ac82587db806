// SPDX-License-Identifier: MIT

/// Which sessions the memory budget ends (PROTOCOL.md 2.6, text revision 1.13), as pure
/// arithmetic: while the count is over 90% of the budget, the session holding the most
/// bytes first, then the next, until the count is no longer over 90%. A session holding no
/// more than its share (90% of the budget ÷ live sessions) is never chosen; while every
/// session is within its share, the sessions' bytes cannot add up to more than 90%.
public enum MemoryShedding {
    /// The count above which the largest holders are ended: 90% of `budget`.
    public static func sheddingLimit(budget: Int) -> Int { budget - budget / 10 }

    /// The sessions to end, largest holder first.
    /// - Parameters:
    ///   - holdings: the bytes each live session holds (one entry per live session).
    ///   - total: the daemon-wide count (it may include bytes of no session, e.g. frames
    ///     read before a `hello`).
    ///   - budget: the memory budget in bytes.
    /// - Returns: indices into `holdings`, in the order to end them; empty when `total` is
    ///   not over 90% of `budget`.
    public static func victims(holdings: [Int], total: Int, budget: Int) -> [Int] {
        let limit = sheddingLimit(budget: budget)
        guard total > limit, !holdings.isEmpty else { return [] }
        let order = holdings.indices.sorted { holdings[$0] > holdings[$1] }
        var count = total
        var live = holdings.count
        var chosen: [Int] = []
        for i in order {
            if count <= limit { break }
            // The share grows as sessions end: 90% of the budget ÷ the sessions still live.
            let share = limit / live
            // Sorted: every later session holds no more than this one.
            if holdings[i] <= share { break }
            chosen.append(i)
            count -= holdings[i]
            live -= 1
        }
        return chosen
    }
}

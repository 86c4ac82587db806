// SPDX-License-Identifier: MIT
import HeapModule

/// `paced`: when each session makes its next call. Every session calls once per period, at
/// a phase of its own (spread evenly at random over the period), so the calls of N
/// sessions arrive as a steady N / period stream rather than in bursts, as pages do.
/// Pure: the worker feeds it its clock (ms) and asks what is due.
struct PacedSchedule {
    private struct Entry: Comparable {
        var due: UInt64
        var link: Int
        static func < (a: Entry, b: Entry) -> Bool { a.due < b.due || (a.due == b.due && a.link < b.link) }
    }

    /// Milliseconds between two calls of one session.
    let periodMs: UInt64
    private var heap = Heap<Entry>()

    init(periodMs: UInt64) {
        self.periodMs = max(1, periodMs)
    }

    /// Starts `link`'s calls: its first at `now` + its random phase in the period.
    mutating func start(_ link: Int, now: UInt64) {
        heap.insert(Entry(due: now + UInt64.random(in: 0..<periodMs), link: link))
    }

    /// The earliest due time (`nil`: nothing scheduled).
    var earliest: UInt64? { heap.min?.due }

    /// Links due at `now`, in due order; each is scheduled one period after its due time
    /// (so a late pass does not shift a session's phase). The caller drops links that are
    /// gone or stopped by not calling ``start(_:now:)`` again: a gone link's entry is
    /// removed here when `isLive` says so.
    mutating func popDue(now: UInt64, isLive: (Int) -> Bool) -> [Int] {
        var due: [Int] = []
        while let head = heap.min, head.due <= now {
            var entry = heap.removeMin()
            guard isLive(entry.link) else { continue }
            due.append(entry.link)
            entry.due += periodMs
            // A pass later than a whole period skips the missed calls instead of bursting.
            if entry.due <= now { entry.due = now + periodMs }
            heap.insert(entry)
        }
        return due
    }
}

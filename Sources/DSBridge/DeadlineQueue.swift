// SPDX-License-Identifier: MIT
import HeapModule

/// Deadlines in milliseconds, earliest first: a binary heap, so scheduling and taking the
/// next due entry cost O(log n) however many sessions are held (pure; no clock, no I/O).
///
/// Entries are never removed early. A subject whose deadline moved keeps its old entry;
/// the owner recognises it as stale when it comes due (``SocketLiveness/armedDeadline`` and
/// friends) and ignores it, which is cheaper than finding it in the heap.
package struct DeadlineQueue<Subject> {
    private struct Entry: Comparable {
        let deadline: UInt64
        /// Keeps entries with equal deadlines in scheduling order.
        let order: UInt64
        let subject: Subject

        static func < (a: Entry, b: Entry) -> Bool { (a.deadline, a.order) < (b.deadline, b.order) }
        static func == (a: Entry, b: Entry) -> Bool { a.deadline == b.deadline && a.order == b.order }
    }

    private var heap = Heap<Entry>()
    private var scheduled: UInt64 = 0

    package init() {}

    /// Adds `subject`, due at `deadline`.
    package mutating func schedule(_ subject: Subject, at deadline: UInt64) {
        scheduled &+= 1
        heap.insert(Entry(deadline: deadline, order: scheduled, subject: subject))
    }

    /// The earliest deadline, if any entry is left.
    package var earliest: UInt64? { heap.min?.deadline }

    /// Entries held, stale ones included.
    package var count: Int { heap.count }

    /// Takes the earliest entry if it is due at `now`.
    package mutating func popDue(now: UInt64) -> (subject: Subject, deadline: UInt64)? {
        guard let first = heap.min, first.deadline <= now else { return nil }
        _ = heap.removeMin()
        return (first.subject, first.deadline)
    }
}

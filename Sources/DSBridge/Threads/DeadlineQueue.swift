// SPDX-License-Identifier: MIT
import HeapModule

/// Deadlines in milliseconds, earliest first: a binary heap, so scheduling and taking the
/// next due entry cost O(log n) however many sessions are held (pure; no clock, no I/O).
///
/// Entries are never removed early. A subject whose deadline moved keeps its old entry;
/// the owner recognises it as stale when it comes due (``SocketLiveness/armedDeadline`` and
/// friends) and ignores it, which is cheaper than finding it in the heap.
///
/// Its members are inlinable so that a user in another module (the service loop) gets
/// code specialised for its `Subject`: unspecialised, every comparison and move inside the
/// heap goes through generic witnesses and metadata look-ups (measured: several
/// microseconds per `popDue` on a heap of 10,000 entries). It is `public` only for that:
/// with this toolchain, `@inlinable` members of a `package` type were not specialised in
/// the other module (the service loop ran the generic code); applications have no use for
/// it.
public struct DeadlineQueue<Subject> {
    @usableFromInline
    struct Entry: Comparable {
        @usableFromInline let deadline: UInt64
        /// Keeps entries with equal deadlines in scheduling order.
        @usableFromInline let order: UInt64
        @usableFromInline let subject: Subject

        @inlinable
        init(deadline: UInt64, order: UInt64, subject: Subject) {
            self.deadline = deadline
            self.order = order
            self.subject = subject
        }

        @inlinable
        static func < (a: Entry, b: Entry) -> Bool { (a.deadline, a.order) < (b.deadline, b.order) }
        @inlinable
        static func == (a: Entry, b: Entry) -> Bool { a.deadline == b.deadline && a.order == b.order }
    }

    @usableFromInline var heap = Heap<Entry>()
    @usableFromInline var scheduled: UInt64 = 0

    @inlinable
    public init() {}

    /// Adds `subject`, due at `deadline`.
    @inlinable
    public mutating func schedule(_ subject: Subject, at deadline: UInt64) {
        scheduled &+= 1
        heap.insert(Entry(deadline: deadline, order: scheduled, subject: subject))
    }

    /// The earliest deadline, if any entry is left.
    @inlinable
    public var earliest: UInt64? { heap.min?.deadline }

    /// The subject of the earliest entry, if any is left.
    @inlinable
    public var earliestSubject: Subject? { heap.min?.subject }

    /// Takes the earliest entry, due or not.
    @inlinable
    public mutating func popEarliest() {
        _ = heap.popMin()
    }

    /// Entries held, stale ones included.
    @inlinable
    public var count: Int { heap.count }

    /// Takes the earliest entry if it is due at `now`.
    @inlinable
    public mutating func popDue(now: UInt64) -> (subject: Subject, deadline: UInt64)? {
        guard let first = heap.min, first.deadline <= now else { return nil }
        _ = heap.removeMin()
        return (first.subject, first.deadline)
    }
}

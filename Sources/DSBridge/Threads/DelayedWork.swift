// SPDX-License-Identifier: MIT
import Dispatch
import Foundation
import Synchronization

/// Runs work after a delay: one thread sleeps until the earliest deadline and hands what is
/// due to its Dispatch queue.
///
/// `DispatchQueue.asyncAfter` pokes Dispatch's timer thread on every call (an `eventfd`
/// write, a wake-up and a `timerfd` re-arm), even when the new deadline comes after one
/// already armed. Every native-initiated call sets a timeout, so under load that was a
/// thread wake-up per call, competing for the cores with the call itself. Here scheduling
/// wakes the thread only when the new deadline is the earliest, and work can be called off
/// (``cancel(_:)``): the timeout of a call answered long before holds no memory.
package final class DelayedWork: Sendable {
    /// The process's one timer thread.
    package static let shared = DelayedWork()

    private struct Item {
        let deadline: UInt64
        let queue: DispatchQueue
        let work: @Sendable () -> Void
    }

    private struct State {
        /// The ids of scheduled work by deadline, cancelled ones included until they come
        /// due (or the queue is rebuilt: ``rebuildIfMostlyCancelled()``).
        var deadlines = DeadlineQueue<UInt64>()
        /// The work not yet run nor cancelled, by id.
        var items: [UInt64: Item] = [:]
        var lastID: UInt64 = 0
        /// When the thread wakes by itself (`UInt64.max`: only when signalled).
        var sleepsUntil = UInt64.max

        /// Cancelled work leaves its id in ``deadlines`` (16 bytes or so, not its closure);
        /// once those outnumber the live ones twice over, the queue is made again from the
        /// live ones, so memory follows the work still pending, not the rate of scheduling
        /// times the delay (a call answered in a millisecond with a 30 s timeout).
        mutating func rebuildIfMostlyCancelled() {
            guard deadlines.count > 2 * items.count + 1_024 else { return }
            var fresh = DeadlineQueue<UInt64>()
            for (id, item) in items.sorted(by: { $0.key < $1.key }) { fresh.schedule(id, at: item.deadline) }
            deadlines = fresh
        }

        /// Drops cancelled work from the front of the queue, so the thread sleeps until the
        /// earliest work still pending, not until a deadline nobody waits for. Without it, a
        /// steady stream of calls answered before their timeouts woke the thread once per
        /// call once the first timeout period had passed (each cancelled deadline in turn).
        mutating func dropCancelledHead() {
            while let id = deadlines.earliestSubject, items[id] == nil { deadlines.popEarliest() }
        }
    }

    private let state = Mutex(State())
    private let wakeUp = DispatchSemaphore(value: 0)
    private let passes = Atomic<Int>(0)

    /// How many times the thread woke up and looked for due work (tests).
    package var wakeUps: Int { passes.load(ordering: .relaxed) }

    /// Starts the thread (`name` is its kernel name: at most 15 bytes). The process needs
    /// only ``shared``; tests make their own to count what is pending.
    package init(threadName name: String = "dsbridge-timer") {
        startNamedThread(name, kernelName: name) { [self] in loop() }
    }

    /// Runs `work` on `queue` (Dispatch's global queue by default) once `milliseconds` have
    /// passed (monotonic clock, as `DispatchTime`). - Returns: its id, for ``cancel(_:)``.
    @discardableResult
    package func schedule(
        afterMilliseconds milliseconds: Int, on queue: DispatchQueue = .global(), _ work: @escaping @Sendable () -> Void
    ) -> UInt64 {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, milliseconds)) &* 1_000_000
        let (id, wake) = state.withLock { s -> (UInt64, Bool) in
            s.lastID &+= 1
            s.items[s.lastID] = Item(deadline: deadline, queue: queue, work: work)
            s.deadlines.schedule(s.lastID, at: deadline)
            guard deadline < s.sleepsUntil else { return (s.lastID, false) }
            s.sleepsUntil = deadline
            return (s.lastID, true)
        }
        if wake { wakeUp.signal() }
        return id
    }

    /// Calls off the work `id` if it has not run yet, releasing its closure now.
    package func cancel(_ id: UInt64) {
        let item = state.withLock { s -> Item? in
            let item = s.items.removeValue(forKey: id)
            if item != nil { s.rebuildIfMostlyCancelled() }
            return item
        }
        _ = item  // released here, outside the lock (its closure may hold anything)
    }

    /// Work scheduled and neither run nor cancelled.
    package var pendingCount: Int { state.withLock { $0.items.count } }

    private func loop() {
        while true {
            passes.add(1, ordering: .relaxed)
            let now = DispatchTime.now().uptimeNanoseconds
            let (due, next) = state.withLock { s -> ([Item], UInt64) in
                var due: [Item] = []
                while let entry = s.deadlines.popDue(now: now) {
                    if let item = s.items.removeValue(forKey: entry.subject) { due.append(item) }
                }
                s.dropCancelledHead()
                s.sleepsUntil = s.deadlines.earliest ?? .max
                return (due, s.sleepsUntil)
            }
            // Each on its own: a timeout handler is application code and may take its time.
            for item in due { item.queue.async(execute: item.work) }
            // A deadline scheduled after `next` was read signals the semaphore, so this
            // wait returns at once and the loop reads it.
            if next == .max {
                wakeUp.wait()
            } else {
                _ = wakeUp.wait(timeout: DispatchTime(uptimeNanoseconds: next))
            }
        }
    }
}

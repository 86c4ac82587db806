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
/// wakes the thread only when the new deadline is the earliest; timeouts of calls that
/// were answered long before cost nothing until they come due.
package final class DelayedWork: Sendable {
    /// The process's one timer thread.
    package static let shared = DelayedWork()

    private struct State {
        var deadlines = DeadlineQueue<(queue: DispatchQueue, work: @Sendable () -> Void)>()
        /// When the thread wakes by itself (`UInt64.max`: only when signalled).
        var sleepsUntil = UInt64.max
    }

    private let state = Mutex(State())
    private let wakeUp = DispatchSemaphore(value: 0)

    private init() {
        startNamedThread("dsbridge-timer", kernelName: "dsbridge-timer") { [self] in loop() }
    }

    /// Runs `work` on `queue` (Dispatch's global queue by default) once `milliseconds` have
    /// passed (monotonic clock, as `DispatchTime`).
    package func schedule(
        afterMilliseconds milliseconds: Int, on queue: DispatchQueue = .global(), _ work: @escaping @Sendable () -> Void
    ) {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, milliseconds)) &* 1_000_000
        let wake = state.withLock { s -> Bool in
            s.deadlines.schedule((queue, work), at: deadline)
            guard deadline < s.sleepsUntil else { return false }
            s.sleepsUntil = deadline
            return true
        }
        if wake { wakeUp.signal() }
    }

    private func loop() {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let (due, next) = state.withLock { s -> ([(queue: DispatchQueue, work: @Sendable () -> Void)], UInt64) in
                var due: [(queue: DispatchQueue, work: @Sendable () -> Void)] = []
                while let entry = s.deadlines.popDue(now: now) { due.append(entry.subject) }
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

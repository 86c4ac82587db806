// SPDX-License-Identifier: MIT
import DSBridge
import Dispatch
import Synchronization

/// An executor the test drives: work handed to a worker waits until the test runs it
/// (``runUntilIdle()``), and the clock moves only when the test calls ``advance(milliseconds:)``.
/// Everything it runs runs on the test's own thread, so a test sees each effect at once,
/// without sleeping. Each hand-over signals ``activity``.
final class ManualExecutor: BridgeExecutor {
    private struct Timer: Sendable {
        let due: Int
        let order: Int
        let work: @Sendable () -> Void
    }
    private struct State: Sendable {
        var now = 0
        var nextOrder = 0
        var ready: [@Sendable () -> Void] = []
        var timers: [Timer] = []
    }
    private let state = Mutex(State())
    /// Signalled whenever work is handed over (also from other threads).
    let activity: Activity
    /// Work handed to a worker runs on Dispatch's workers (only the clock is manual): for
    /// tests whose worker must block while the test thread goes on.
    let realWorkers: Bool

    init(activity: Activity = Activity(), realWorkers: Bool = false) {
        self.activity = activity
        self.realWorkers = realWorkers
    }

    func execute(_ work: @escaping @Sendable () -> Void) {
        if realWorkers {
            DispatchQueue.global().async(execute: work)
            return
        }
        state.withLock { $0.ready.append(work) }
        activity.signal()
    }

    func schedule(afterMilliseconds milliseconds: Int, _ work: @escaping @Sendable () -> Void) {
        state.withLock { s in
            s.timers.append(Timer(due: s.now + milliseconds, order: s.nextOrder, work: work))
            s.nextOrder += 1
        }
        activity.signal()
    }

    var uptimeMilliseconds: Int64 { Int64(state.withLock { $0.now }) }

    /// Timers scheduled and not yet run: a test that moves the clock waits until the timer
    /// it means is among them (it may be scheduled a moment after the state it watches).
    var pendingTimerCount: Int { state.withLock { $0.timers.count } }

    /// Runs the work handed over (timers due now included), and what that work hands
    /// over, until none is left.
    func runUntilIdle() {
        while true {
            let batch = state.withLock { s -> [@Sendable () -> Void] in
                defer { s.ready.removeAll() }
                return s.ready + Self.takeDue(&s).map(\.work)
            }
            if batch.isEmpty { return }
            for work in batch { work() }
        }
    }

    /// Removes the timers due at `s.now` and returns them in due order.
    private static func takeDue(_ s: inout State) -> [Timer] {
        let due = s.timers.filter { $0.due <= s.now }.sorted { ($0.due, $0.order) < ($1.due, $1.order) }
        s.timers.removeAll { $0.due <= s.now }
        return due
    }

    /// Moves the clock and runs whatever fell due (in due order), then the work it handed over.
    func advance(milliseconds: Int) {
        runUntilIdle()
        let due = state.withLock { s -> [Timer] in
            s.now += milliseconds
            return Self.takeDue(&s)
        }
        for timer in due {
            timer.work()
            runUntilIdle()
        }
    }
}

/// A signal that something happened, which a test can await without sleeping: the
/// harness's waker and ``ManualExecutor`` signal it, so a test waiting for output wakes
/// when there may be some.
final class Activity: Sendable {
    private struct State {
        var generation = 0
        var waiters: [(generation: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state = Mutex(State())

    /// The count of signals so far; pass it to ``wait(after:)``.
    var generation: Int { state.withLock { $0.generation } }

    func signal() {
        let waiting = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.generation += 1
            defer { s.waiters.removeAll() }
            return s.waiters.map(\.continuation)
        }
        for c in waiting { c.resume() }
    }

    /// Returns once a signal came after `generation` was read.
    func wait(after generation: Int) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.generation != generation { return true }
                s.waiters.append((generation, c))
                return false
            }
            if now { c.resume() }
        }
    }
}

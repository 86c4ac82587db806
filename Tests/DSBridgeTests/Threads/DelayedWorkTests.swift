// SPDX-License-Identifier: MIT
import Dispatch
import Synchronization
import Testing

@testable import DSBridge

@Suite("Delayed work: one timer thread for every deadline")
struct DelayedWorkTests {
    /// Waits (at most `seconds`) until `condition` holds.
    private func eventually(seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while DispatchTime.now().uptimeNanoseconds < end {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return condition()
    }

    @Test("work runs once its delay has passed, not before")
    func runsAfterItsDelay() async {
        let start = DispatchTime.now().uptimeNanoseconds
        let ranAt = Mutex<UInt64?>(nil)
        DelayedWork.shared.schedule(afterMilliseconds: 40) { ranAt.withLock { $0 = DispatchTime.now().uptimeNanoseconds } }
        #expect(await eventually { ranAt.withLock { $0 } != nil })
        let elapsed = (ranAt.withLock { $0 } ?? start) - start
        #expect(elapsed >= 40_000_000, "ran after \(elapsed) ns")
    }

    @Test("a deadline earlier than the one the thread sleeps for wakes it: the earlier work runs first")
    func earlierDeadlineScheduledLaterRunsFirst() async {
        let order = Mutex<[String]>([])
        DelayedWork.shared.schedule(afterMilliseconds: 3_000) { order.withLock { $0.append("late") } }
        DelayedWork.shared.schedule(afterMilliseconds: 10) { order.withLock { $0.append("early") } }
        #expect(await eventually { order.withLock { $0.contains("late") } })
        #expect(order.withLock { $0 } == ["early", "late"])
    }

    @Test("entries due together all run, each on the queue it was scheduled for")
    func runsOnItsQueue() async {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "delayed-work-test")
        queue.setSpecific(key: key, value: "mine")
        let seen = Mutex<[String?]>([])
        for _ in 0..<50 {
            DelayedWork.shared.schedule(afterMilliseconds: 5, on: queue) { seen.withLock { $0.append(DispatchQueue.getSpecific(key: key)) } }
        }
        #expect(await eventually { seen.withLock { $0.count } == 50 })
        #expect(seen.withLock { $0 }.allSatisfy { $0 == "mine" })
    }

    @Test("calls answered before their timeouts do not wake the thread at each cancelled deadline: it sleeps until work still pending")
    func cancelledDeadlinesDoNotWakeTheThread() async throws {
        let timers = DelayedWork(threadName: "test-timer-w")
        // Twenty calls one after another, each answered 2 ms after it started (its timeout
        // called off), the last still running: as native calls with a 100 ms timeout.
        for i in 0..<20 {
            let id = timers.schedule(afterMilliseconds: 100) {}
            try await Task.sleep(for: .milliseconds(2))
            if i < 19 { timers.cancel(id) }
            try await Task.sleep(for: .milliseconds(3))
        }
        #expect(await eventually { timers.pendingCount == 0 }, "the last one ran")
        // The first schedule, the first deadline (all before it cancelled), the last one's:
        // a few wake-ups, not one per cancelled deadline (20 before). (Up to 12: on a loaded
        // machine the sleeps stretch past the first 100 ms deadline, and each such deadline
        // wakes the thread once; 9 was seen with two builds running beside the tests.)
        #expect(timers.wakeUps <= 12, "\(timers.wakeUps) wake-ups")
    }

    @Test("cancelled work never runs, and its closure (with what it holds) is let go at once")
    func cancelReleasesWork() async {
        final class Held: Sendable {}
        let timers = DelayedWork(threadName: "test-timer-1")
        weak var watched: Held?
        let ran = Atomic<Bool>(false)
        do {
            let held = Held()
            watched = held
            let id = timers.schedule(afterMilliseconds: 50) { [held] in
                _ = held
                ran.store(true, ordering: .relaxed)
            }
            timers.cancel(id)
        }
        #expect(watched == nil, "the closure was released by cancel, not kept until its deadline")
        #expect(timers.pendingCount == 0)
        try? await Task.sleep(for: .milliseconds(150))
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
    }

    @Test("after most work was cancelled the queue is rebuilt, and the work left still runs, in deadline order")
    func rebuildKeepsLiveWork() async {
        let timers = DelayedWork(threadName: "test-timer-2")
        let order = Mutex<[Int]>([])
        var cancelled: [UInt64] = []
        for i in 0..<5_000 {
            let id = timers.schedule(afterMilliseconds: 60_000 + i) {}
            cancelled.append(id)
        }
        timers.schedule(afterMilliseconds: 700) { order.withLock { $0.append(2) } }
        timers.schedule(afterMilliseconds: 500) { order.withLock { $0.append(1) } }
        for id in cancelled { timers.cancel(id) }
        #expect(timers.pendingCount == 2)
        #expect(await eventually { order.withLock { $0.count } == 2 })
        #expect(order.withLock { $0 } == [1, 2])
    }
}

// SPDX-License-Identifier: MIT
import Synchronization

/// The daemon-wide count of bytes held for sessions, against the memory budget
/// (PROTOCOL.md 2.6): unacknowledged replay and queued outbound messages, frames read but
/// not yet processed, held invokes, sync-call bodies while their call is held or runs.
///
/// Whoever adds or frees such bytes reports the difference with ``add(_:)``: one atomic
/// add, from any thread, never a walk over sessions. Crossing 90% of the budget starts one
/// shedding pass on the shedding thread (``SheddingThread``; the handler given to
/// ``whenOverBudget(retryingOn:_:)``); while a pass is pending or running, further crossings
/// start nothing. New sessions are refused only while the count is over the whole budget
/// (text revision 1.13: refusing them from 90%, with shedding only above 100%, let one
/// client that stayed under the budget lock the node).
public final class MemoryBudget: Sendable {
    /// The budget in bytes (`memoryBudget`).
    public let limit: Int
    /// Above this count the largest holders are ended: 90% of ``limit``.
    public let sheddingLimit: Int
    private let counted = Atomic<Int>(0)
    /// A shedding pass is scheduled or running.
    private let passPending = Atomic<Bool>(false)
    private let ended = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)
    /// The shedding pass and the executor whose clock times a later pass.
    private struct OverBudgetHandler: Sendable {
        let body: @Sendable (MemoryBudget) -> Void
        let executor: any BridgeExecutor
    }
    private let handler = Mutex<OverBudgetHandler?>(nil)
    private let log = Mutex(LogWindow())

    /// What happened since the last log line (at most one a second).
    private struct LogWindow {
        var lastLineMs: Int64 = .min
        var ended = 0
        var endedBytes = 0
        var refused = 0
    }

    /// - Parameter limit: the budget in bytes (`Int.max`: no budget).
    public init(limit: Int) {
        self.limit = max(1, limit)
        sheddingLimit = MemoryShedding.sheddingLimit(budget: self.limit)
    }

    /// Bytes counted now (never negative: every byte added is taken back once).
    public var held: Int { counted.load(ordering: .relaxed) }

    /// Sessions ended by the budget so far.
    public var sessionsEnded: Int { ended.load(ordering: .relaxed) }
    /// New sessions refused by the budget so far.
    public var sessionsRefused: Int { refused.load(ordering: .relaxed) }

    /// Whether a new session may open: the count is not over the budget.
    public var admitsNewSessions: Bool { held <= limit }

    /// Sets the work a crossing of the budget starts (on the shedding thread, given this
    /// budget, so it need not hold it); a later pass waits on `executor`'s clock.
    func whenOverBudget(retryingOn executor: any BridgeExecutor, _ body: @escaping @Sendable (MemoryBudget) -> Void) {
        let registered = OverBudgetHandler(body: body, executor: executor)
        handler.withLock { $0 = registered }
    }

    /// Counts `delta` bytes more (negative: fewer). Safe under any lock: it only adds, and
    /// on crossing 90% of the budget hands the shedding pass to the shedding thread.
    func add(_ delta: Int) {
        guard delta != 0 else { return }
        let now = counted.wrappingAdd(delta, ordering: .relaxed).newValue
        if delta > 0, now > sheddingLimit { startPass(after: 0) }
    }

    /// Schedules a shedding pass unless one is pending.
    private func startPass(after milliseconds: Int) {
        guard !passPending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        guard let registered = handler.withLock({ $0 }) else {
            passPending.store(false, ordering: .releasing)
            return
        }
        let body = registered.body
        let pass: @Sendable () -> Void = { body(self) }
        if milliseconds == 0 {
            SheddingThread.shared.post(pass)
        } else {
            registered.executor.schedule(afterMilliseconds: milliseconds) { SheddingThread.shared.post(pass) }
        }
    }

    /// A pass is over; `endedAny`: it ended sessions. Still over 90% of the budget, another
    /// pass follows: at once after progress, after 100 ms when every session was within its
    /// share (bytes of no session, such as frames read before a `hello`, can keep the count
    /// there; the sessions are not walked continuously meanwhile).
    func passFinished(endedAny: Bool) {
        passPending.store(false, ordering: .releasing)
        if held > sheddingLimit { startPass(after: endedAny ? 0 : 100) }
    }

    /// Counts a session ended by the budget.
    /// - Returns: a log line when one is due (at most one a second), with counts.
    func recordEnded(bytes: Int, nowMs: Int64) -> String? {
        ended.add(1, ordering: .relaxed)
        return log.withLock { w in
            w.ended += 1
            w.endedBytes += bytes
            return line(&w, nowMs: nowMs)
        }
    }

    /// Counts a new session refused by the budget.
    /// - Returns: a log line when one is due (at most one a second), with counts.
    func recordRefused(nowMs: Int64) -> String? {
        refused.add(1, ordering: .relaxed)
        return log.withLock { w in
            w.refused += 1
            return line(&w, nowMs: nowMs)
        }
    }

    private func line(_ w: inout LogWindow, nowMs: Int64) -> String? {
        guard w.lastLineMs == .min || nowMs - w.lastLineMs >= 1_000 else { return nil }
        w.lastLineMs = nowMs
        let text =
            "memory budget: \(held) of \(limit) bytes held; ended \(w.ended) sessions holding \(w.endedBytes) bytes "
            + "and refused \(w.refused) new sessions since the last line (\(sessionsEnded) ended, \(sessionsRefused) refused in all)"
        w.ended = 0
        w.endedBytes = 0
        w.refused = 0
        return text
    }
}

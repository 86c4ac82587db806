// SPDX-License-Identifier: MIT
import Glibc
import Synchronization

/// Keeps `@nonblocking` methods honest on the network thread without charging every call a
/// system call. Wall-clock time alone cannot tell a method that blocked from a thread the
/// kernel preempted (on a busy machine the service thread loses a whole 4 ms tick now and
/// then), so an overrun of ``InlineDispatchPolicy/budgetNanoseconds`` only starts a check:
/// the next ``verifiedRunsPerOverrun`` network-thread runs also read the thread's CPU time
/// and voluntary context switches. A run in that check that overruns again *and* either
/// blocked (a voluntary switch) or used more CPU than the budget is a strike against its
/// method; ``strikesToDemote`` strikes within one check demote it. (One strike is not
/// enough: on a loaded machine the kernel charges interrupt work to whatever thread it
/// lands on, and a brief lock wait is a voluntary switch too; a method that really blocks
/// strikes on every run.)
final class NetworkThreadGuard: Sendable {
    /// Network-thread runs measured closely after each unexplained overrun.
    static let verifiedRunsPerOverrun = 1_000
    /// Confirmed overruns of one method, within one check, that demote it.
    static let strikesToDemote = 3

    private let runsToVerify = Atomic<Int>(0)
    /// Strikes by method in the current check (`check` numbers the checks).
    private let strikes = Mutex<(check: Int, byMethod: [String: Int])>((0, [:]))
    private let checks = Atomic<Int>(0)

    /// The thread's resource use at one moment (a verified run's start or end).
    struct Usage: Sendable, Equatable {
        var cpuNanoseconds: Int64
        var voluntarySwitches: Int

        /// Linux's `RUSAGE_THREAD` (1), which Glibc's module map leaves out (it needs _GNU_SOURCE).
        private static let rusageThread = __rusage_who_t(1)

        /// Reads the calling thread's figures (`getrusage(RUSAGE_THREAD)`).
        static func ofCurrentThread() -> Usage? {
            var usage = rusage()
            guard getrusage(rusageThread, &usage) == 0 else { return nil }
            let cpu =
                (Int64(usage.ru_utime.tv_sec) + Int64(usage.ru_stime.tv_sec)) * 1_000_000_000
                + (Int64(usage.ru_utime.tv_usec) + Int64(usage.ru_stime.tv_usec)) * 1_000
            return Usage(cpuNanoseconds: cpu, voluntarySwitches: usage.ru_nvcsw)
        }
    }

    /// What one network-thread run amounted to.
    enum Verdict: Equatable, Sendable {
        case withinBudget
        /// Over budget, cause unknown (maybe preemption): check the next runs.
        case unexplainedOverrun
        /// Over budget because the method blocked or computed for too long.
        case overran(blocked: Bool)
    }

    /// The judgement, pure: `before`/`after` are present for verified runs only.
    static func verdict(wallNanoseconds: Int64, budget: Int64, before: Usage?, after: Usage?) -> Verdict {
        guard wallNanoseconds > budget else { return .withinBudget }
        guard let before, let after else { return .unexplainedOverrun }
        if after.voluntarySwitches > before.voluntarySwitches { return .overran(blocked: true) }
        if after.cpuNanoseconds - before.cpuNanoseconds > budget { return .overran(blocked: false) }
        return .unexplainedOverrun
    }

    /// Called before a network-thread run: the usage to compare with, when this run is checked.
    func startRun() -> Usage? {
        guard runsToVerify.load(ordering: .relaxed) > 0 else { return nil }
        runsToVerify.subtract(1, ordering: .relaxed)
        return Usage.ofCurrentThread()
    }

    /// Called after a network-thread run of `method` that started with `before`.
    /// - Returns: whether to demote the method, and why (`blocked`, else it computed).
    func finishRun(of method: String, wallNanoseconds: Int64, before: Usage?) -> (demote: Bool, blocked: Bool) {
        let budget = InlineDispatchPolicy.budgetNanoseconds
        let after = before == nil || wallNanoseconds <= budget ? nil : Usage.ofCurrentThread()
        switch Self.verdict(wallNanoseconds: wallNanoseconds, budget: budget, before: before, after: after) {
        case .withinBudget:
            return (false, false)
        case .unexplainedOverrun:
            if runsToVerify.exchange(Self.verifiedRunsPerOverrun, ordering: .relaxed) <= 0 {
                checks.add(1, ordering: .relaxed)  // a new check: earlier strikes lapse
            }
            return (false, false)
        case .overran(let blocked):
            let check = checks.load(ordering: .relaxed)
            let count = strikes.withLock { s -> Int in
                if s.check != check { s = (check, [:]) }
                s.byMethod[method, default: 0] += 1
                return s.byMethod[method, default: 0]
            }
            return (count >= Self.strikesToDemote, blocked)
        }
    }
}

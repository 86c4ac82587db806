// SPDX-License-Identifier: MIT
import Dispatch

/// Where the bridge runs the work it does not do on the caller's thread: frames handed off
/// the network thread, handlers of page answers, grace periods, timeouts and the rate
/// clock. One is injected into ``Bridge``; the real one uses Dispatch, tests pass one they
/// drain and advance by hand, so core tests run without sleeping.
public protocol BridgeExecutor: Sendable {
    /// Runs `work` soon, on a worker (never on the caller's stack).
    func execute(_ work: @escaping @Sendable () -> Void)
    /// Runs `work` once, `milliseconds` from now, on a worker.
    func schedule(afterMilliseconds milliseconds: Int, _ work: @escaping @Sendable () -> Void)
    /// Like ``schedule(afterMilliseconds:_:)``, for work that may be called off before it is
    /// due (a call's timeout, once the call is answered): ``ScheduledWork/cancel()`` lets go
    /// of `work` and what it holds. The default schedules it with
    /// ``schedule(afterMilliseconds:_:)``, which cannot be called off.
    func scheduleCancellable(afterMilliseconds milliseconds: Int, _ work: @escaping @Sendable () -> Void) -> ScheduledWork
    /// Milliseconds on this executor's monotonic clock (rate limits read it).
    var uptimeMilliseconds: Int64 { get }
    /// ``uptimeMilliseconds`` at `nanoseconds` of Dispatch's uptime clock (`DispatchTime`),
    /// a reading the caller took already: the real executor's clock is that one, so it need
    /// not be read again. The default (an executor with a clock of its own) answers
    /// ``uptimeMilliseconds``.
    func uptimeMilliseconds(atDispatchUptime nanoseconds: UInt64) -> Int64
}

/// Work scheduled with ``BridgeExecutor/scheduleCancellable(afterMilliseconds:_:)``.
public struct ScheduledWork: Sendable {
    let id: UInt64
    let timers: DelayedWork?

    /// Work that cannot be called off (it runs when due and finds nothing left to do).
    public static let notCancellable = ScheduledWork(id: 0, timers: nil)

    /// Calls the work off if it has not run yet.
    public func cancel() { timers?.cancel(id) }
}

extension BridgeExecutor {
    public func uptimeMilliseconds(atDispatchUptime nanoseconds: UInt64) -> Int64 { uptimeMilliseconds }

    public func scheduleCancellable(afterMilliseconds milliseconds: Int, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        schedule(afterMilliseconds: milliseconds, work)
        return .notCancellable
    }

    /// Suspends the calling task for `milliseconds` on this executor's clock.
    func sleep(milliseconds: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            schedule(afterMilliseconds: milliseconds) { continuation.resume() }
        }
    }
}

/// The real executor: Dispatch's global queue, the system's monotonic clock, and one timer
/// thread for delayed work (``DelayedWork``).
///
/// It holds nothing (the timer thread is ``DelayedWork/shared``): the bridge copies it, as an
/// existential, on every hand-off to a worker, and a stored reference would cost a retain
/// and a release each time (the micro-benchmarks count them).
public struct DispatchBridgeExecutor: BridgeExecutor {
    public init() {}

    public func execute(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async(execute: work)
    }

    public func schedule(afterMilliseconds milliseconds: Int, _ work: @escaping @Sendable () -> Void) {
        DelayedWork.shared.schedule(afterMilliseconds: milliseconds, work)
    }

    public func scheduleCancellable(afterMilliseconds milliseconds: Int, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        ScheduledWork(id: DelayedWork.shared.schedule(afterMilliseconds: milliseconds, work), timers: .shared)
    }

    public var uptimeMilliseconds: Int64 { Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000) }

    public func uptimeMilliseconds(atDispatchUptime nanoseconds: UInt64) -> Int64 { Int64(nanoseconds / 1_000_000) }
}

/// Which thread handles a page message, and so what may run on it.
struct CallSite: Sendable {
    /// Set when the transport's network thread runs the message (``InlineDispatchPolicy``):
    /// it watches `@nonblocking` methods there.
    let networkThreadGuard: NetworkThreadGuard?

    /// A worker thread: anything may run.
    static let worker = CallSite(networkThreadGuard: nil)

    /// The network thread: only `@nonblocking` methods and the bridge's own bookkeeping run
    /// on it; application code (handlers, hooks, cancellation handlers, interface deinits)
    /// goes to a worker.
    static func networkThread(_ networkThreadGuard: NetworkThreadGuard) -> CallSite {
        CallSite(networkThreadGuard: networkThreadGuard)
    }

    var isNetworkThread: Bool { networkThreadGuard != nil }

    /// Runs application code: here on a worker, through `executor` on the network thread.
    func runApplicationCode(on executor: any BridgeExecutor, _ work: @escaping @Sendable () -> Void) {
        if isNetworkThread { executor.execute(work) } else { work() }
    }
}

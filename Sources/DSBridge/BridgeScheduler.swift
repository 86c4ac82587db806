// SPDX-License-Identifier: MIT
import Dispatch

/// Runs work after a delay: grace periods, call timeouts. Injected so tests can move time
/// by hand instead of sleeping.
public protocol BridgeScheduler: Sendable {
    /// Runs `work` once, `milliseconds` from now, on any thread.
    func schedule(afterMilliseconds milliseconds: Int, _ work: @escaping @Sendable () -> Void)
    /// Milliseconds on this scheduler's monotonic clock (rate limits read it).
    var uptimeMilliseconds: Int64 { get }
}

extension BridgeScheduler {
    /// The system's monotonic clock.
    public var uptimeMilliseconds: Int64 { Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000) }

    /// Suspends the calling task for `milliseconds` on this scheduler's clock.
    func sleep(milliseconds: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            schedule(afterMilliseconds: milliseconds) { continuation.resume() }
        }
    }
}

/// The real clock: Dispatch's global queue.
public struct DispatchBridgeScheduler: BridgeScheduler {
    public init() {}

    public func schedule(afterMilliseconds milliseconds: Int, _ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds), execute: work)
    }
}

// SPDX-License-Identifier: MIT
import Dispatch

/// Runs work after a delay: grace periods, call timeouts. Injected so tests can move time
/// by hand instead of sleeping.
public protocol BridgeScheduler: Sendable {
    /// Runs `work` once, `milliseconds` from now, on any thread.
    func schedule(afterMilliseconds milliseconds: Int, _ work: @escaping @Sendable () -> Void)
}

/// The real clock: Dispatch's global queue.
public struct DispatchBridgeScheduler: BridgeScheduler {
    public init() {}

    public func schedule(afterMilliseconds milliseconds: Int, _ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds), execute: work)
    }
}

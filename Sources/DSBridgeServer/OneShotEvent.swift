// SPDX-License-Identifier: MIT
import Dispatch
import Synchronization

/// Something that happens once (the service thread is listening, the service thread has
/// ended) and carries a value; any number of waiters learn it, blocking a thread
/// (``wait()``) or suspending a task (``value``) — the async wait never holds a thread of
/// the Swift concurrency pool.
final class OneShotEvent<Value: Sendable>: Sendable {
    private enum State {
        case pending([CheckedContinuation<Value, Never>])
        case happened(Value)
    }

    private let state = Mutex<State>(.pending([]))
    /// Signalled once when the event happens; each blocking waiter passes the signal on.
    private let semaphore = DispatchSemaphore(value: 0)

    init() {}

    /// The event happens with `value`; later calls are ignored. Any thread.
    func fulfill(_ value: Value) {
        let waiters: [CheckedContinuation<Value, Never>]? = state.withLock { state in
            guard case .pending(let waiters) = state else { return nil }
            state = .happened(value)
            return waiters
        }
        guard let waiters else { return }
        semaphore.signal()
        for waiter in waiters { waiter.resume(returning: value) }
    }

    /// The value, if the event has happened.
    var current: Value? {
        state.withLock { state in
            if case .happened(let value) = state { return value }
            return nil
        }
    }

    /// Blocks the calling thread until the event has happened. Not for tasks: use ``value``.
    func wait() -> Value {
        if let value = current { return value }
        semaphore.wait()
        semaphore.signal()
        guard let value = current else { preconditionFailure("the semaphore is signalled only after the value is set") }
        return value
    }

    /// Suspends until the event has happened.
    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let value: Value? = state.withLock { state in
                    switch state {
                    case .happened(let value):
                        return value
                    case .pending(var waiters):
                        waiters.append(continuation)
                        state = .pending(waiters)
                        return nil
                    }
                }
                if let value { continuation.resume(returning: value) }
            }
        }
    }
}

// SPDX-License-Identifier: MIT
import CHiredis
import Dispatch
import Foundation
import Synchronization

/// The dedicated thread of a ``RedisClient`` or ``RedisSubscriber``: started once, named for
/// the kernel, with SIGPIPE blocked; others can wait for its end.
final class RedisThread: Sendable {
    private struct State {
        var started = false
        var thread: pthread_t?
    }

    private let state = Mutex(State())
    /// Signalled when the body has returned; every waiter passes the signal on.
    private let ended = DispatchSemaphore(value: 0)

    init() {}

    /// Starts the thread running `body`; later calls do nothing. `name` is cut to the
    /// kernel's 15 bytes (`top -H`, /proc/PID/task/TID/comm).
    func start(name: String, body: @escaping @Sendable () -> Void) {
        let first = state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        let threadName = String(decoding: Array(name.utf8.prefix(15)), as: UTF8.self)
        let thread = Thread { [self] in
            let me = pthread_self()
            state.withLock { $0.thread = me }
            CHiredis_name_thread(threadName)
            CHiredis_block_sigpipe()
            body()
            ended.signal()
        }
        thread.name = threadName
        thread.start()
    }

    /// Whether ``start(name:body:)`` was called.
    var wasStarted: Bool { state.withLock { $0.started } }

    /// Whether the caller is this thread.
    var isCurrent: Bool {
        guard let thread = state.withLock({ $0.thread }) else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    /// Blocks until the body has returned; returns at once when the thread was never started
    /// or when called from the thread itself (which cannot wait for its own end).
    func join() {
        guard wasStarted, !isCurrent else { return }
        ended.wait()
        ended.signal()
    }
}

// SPDX-License-Identifier: MIT
import CLibWebSockets
import DSBridge
import Glibc
import Synchronization

/// Work handed to the service thread from other threads.
enum ServiceWork: Sendable {
    /// A WebSocket connection has something to do (write, close, pause change).
    case connection(UInt64)
    /// An HTTP exchange has its answer.
    case httpAnswer(UInt64, HTTPAnswer)
    /// Begin a graceful stop (a drain); with `cut`, end it at once (whatever is still in
    /// flight is cut, as when `drainMs` has passed).
    case stop(cut: Bool)
    /// The watchdog asks whether the service thread still runs: it echoes the number
    /// (``BridgeServer/networkThreadAnswered()``).
    case liveness(UInt64)
}

/// The only door into the service thread: a locked list plus the loop's async handle
/// (`uv_async_send`, the one libuv call that is safe from any thread). Wakes coalesce: one
/// wake per batch of posts, and one post per connection until the service thread takes it
/// (``InboxWaker``). A post made on the service thread itself (a call it ran inline) skips
/// the wake: the loop drains it before it next waits.
final class ServiceInbox: Sendable {
    private struct State: Sendable {
        var wake: ServiceWakeHandle?
        var work: [ServiceWork] = []
        /// The thread that services the context (set by `open`).
        var serviceThread: pthread_t?
        /// Work was posted from the service thread without waking it.
        var postedLocally = false
        /// When another thread woke the loop for the work waiting (monotonic ns), for the
        /// event-loop lag metric.
        var wokenAt: UInt64?
    }
    private let state = Mutex(State())

    /// Called on the service thread once its loop exists.
    func open(_ wake: ServiceWakeHandle) {
        let thread = pthread_self()
        state.withLock { s in
            s.wake = wake
            s.serviceThread = thread
        }
    }

    /// Called on the service thread before its loop closes; later posts are dropped.
    func close() {
        state.withLock { $0.wake = nil }
    }

    /// Hands `work` to the service thread (any thread).
    func post(_ work: ServiceWork) {
        let thread = pthread_self()
        state.withLock { s in
            guard let wake = s.wake else { return }
            let wasEmpty = s.work.isEmpty
            s.work.append(work)
            if let service = s.serviceThread, pthread_equal(service, thread) != 0 {
                s.postedLocally = true
            } else if wasEmpty {
                // (After a local post the list is not empty and nobody woke the loop; the
                // service thread is running, though, and drains before it waits.)
                s.wokenAt = LoopLag.now()
                wake.wake()
            }
        }
    }

    /// Whether the service thread posted since the last ``takeLocalPosts()`` (leaves it set).
    var hasLocalPosts: Bool { state.withLock { $0.postedLocally } }

    /// Whether the service thread posted work since the last call (service thread).
    func takeLocalPosts() -> Bool {
        state.withLock { s in
            let posted = s.postedLocally
            s.postedLocally = false
            return posted
        }
    }

    /// Takes everything posted so far (service thread), and when another thread woke the
    /// loop for it (monotonic ns; nil when only the service thread posted).
    func drain() -> (work: [ServiceWork], wokenAt: UInt64?) {
        state.withLock { s in
            let work = s.work
            s.work.removeAll(keepingCapacity: true)
            s.postedLocally = false
            let woken = s.wokenAt
            s.wokenAt = nil
            return (work, woken)
        }
    }
}

/// Wakes the service thread for one connection. A wake while an earlier one is still
/// pending costs one atomic operation, not the inbox lock (native calls and completions
/// wake often).
final class InboxWaker: ConnectionWaker {
    let inbox: ServiceInbox
    let id: UInt64
    private let pending = Atomic<Bool>(false)

    init(inbox: ServiceInbox, id: UInt64) {
        self.inbox = inbox
        self.id = id
    }

    func wake() {
        // Releasing: what the caller changed before waking is visible to `taken()`'s reader.
        if pending.exchange(true, ordering: .acquiringAndReleasing) { return }
        inbox.post(.connection(id))
    }

    /// The service thread acts on this connection before it next waits (it is reading the
    /// connection's frames): wakes until ``taken()`` are absorbed, as if one were pending.
    func absorb() {
        pending.store(true, ordering: .releasing)
    }

    /// The service thread is about to act on this connection: later wakes post again.
    /// Acquiring: everything done before the wakes it absorbs is visible afterwards.
    func taken() {
        _ = pending.exchange(false, ordering: .acquiringAndReleasing)
    }
}

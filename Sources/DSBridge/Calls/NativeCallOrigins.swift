// SPDX-License-Identifier: MIT
import Synchronization

/// Cluster mode: the handlers of native-initiated calls made on this node, by a number that
/// goes into the call's origin (`NODE|REF`, docs/CLUSTER.md). When the session moves to
/// another node, the page's answers come back here through it. A handler leaves with its
/// final event, whichever way it came (the page, a timeout, the session's end).
final class NativeCallOrigins: Sendable {
    private struct State: Sendable {
        /// Starts at a random number: answers meant for a former process of this node (a
        /// node started again under its name) find no handler instead of another call's.
        var next = Int64.random(in: 1...(1 << 52))
        var handlers: [Int64: NativeCallHandler] = [:]
        /// The highest page call whose answer reached each call (``admit(ref:pageCall:)``).
        var lastPageCall: [Int64: Int64] = [:]
    }
    private let state = Mutex(State())

    /// Keeps `handler`. - Returns: its number and the handler to use instead (it removes
    /// itself on its final event, which it passes on once).
    func register(_ handler: @escaping NativeCallHandler) -> (ref: Int64, handler: NativeCallHandler) {
        let ref = state.withLock { s -> Int64 in
            let ref = s.next
            s.next += 1
            return ref
        }
        let wrapped: NativeCallHandler = { [self] event in
            let final: Bool
            if case .progress = event { final = false } else { final = true }
            let live = state.withLock { s -> Bool in
                guard s.handlers[ref] != nil else { return false }
                if final {
                    s.handlers.removeValue(forKey: ref)
                    s.lastPageCall.removeValue(forKey: ref)
                }
                return true
            }
            if live { handler(event) }
        }
        state.withLock { $0.handlers[ref] = wrapped }
        return (ref, wrapped)
    }

    /// Delivers `event` to call `ref` (ignored once it ended). `pageCall`: the page's
    /// `_dsb.returnValue` call that brought it; an answer of a page call at or below one
    /// delivered already is the same answer passed again, and is dropped.
    func deliver(ref: Int64, _ event: NativeCallEvent, pageCall: Int64? = nil) {
        if let pageCall, !admit(ref: ref, pageCall: pageCall) { return }
        state.withLock { $0.handlers[ref] }?(event)
    }

    /// Whether the answer page call `pageCall` brings is new for call `ref` (the page's calls
    /// of one session are numbered in order, and so are its answers to one call): then it
    /// is recorded. `false` for a call that ended, or an answer delivered already.
    func admit(ref: Int64, pageCall: Int64) -> Bool {
        state.withLock { s in
            guard s.handlers[ref] != nil else { return false }
            if let last = s.lastPageCall[ref], pageCall <= last { return false }
            s.lastPageCall[ref] = pageCall
            return true
        }
    }

    /// Forgets call `ref` without calling its handler.
    func forget(ref: Int64) {
        state.withLock {
            _ = $0.handlers.removeValue(forKey: ref)
            _ = $0.lastPageCall.removeValue(forKey: ref)
        }
    }

    /// Calls waiting (metrics, tests).
    var count: Int { state.withLock { $0.handlers.count } }
}

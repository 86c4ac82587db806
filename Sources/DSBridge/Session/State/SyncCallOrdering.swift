// SPDX-License-Identifier: MIT

/// The order of sync HTTP calls after socket calls (PROTOCOL.md 4, `X-DSBridge-After`), as
/// a value owned by ``SessionState``: the sync calls waiting for the socket calls they must
/// follow, at most ``maxWaiters`` of them.
///
/// Each waiter leaves at its start (``started(through:)``), at its timeout
/// (``stopWaiting(key:)``) or when the session ends (``removeAll()``), so waiters never pile
/// up. Nothing here blocks, reads a clock or runs the waiters: the shell resumes them.
struct SyncCallOrdering: Sendable {
    /// A sync HTTP call waiting for socket calls up to `after`.
    struct Waiter: Sendable {
        let key: Int
        let after: Int64
        /// Runs when the socket calls started (`true`) or the session ended (`false`).
        let resume: @Sendable (Bool) -> Void
    }

    /// How a sync call's wait for socket calls begins.
    enum WaitStart: Sendable, Equatable {
        /// They started: run now.
        case started
        /// The session ended: it never will.
        case ended
        /// ``maxWaiters`` wait already: refuse.
        case full
        /// Waiting; remove it with this key at its timeout.
        case waiting(key: Int)
    }

    /// Sync HTTP calls that may wait for socket calls at once; one more is refused.
    let maxWaiters: Int
    /// The waiting sync calls, in the order they came.
    private(set) var waiters: [Waiter] = []
    private var nextKey = 0

    init(maxWaiters: Int) {
        self.maxWaiters = maxWaiters
    }

    /// A sync call waits for socket calls up to `after`, where `lastCall` is the highest
    /// socket call id received (`ended`: the session is over).
    mutating func wait(through after: Int64, lastCall: Int64, ended: Bool, resume: @escaping @Sendable (Bool) -> Void) -> WaitStart {
        if ended { return .ended }
        if lastCall >= after { return .started }
        if waiters.count >= maxWaiters { return .full }
        let key = nextKey
        nextKey += 1
        waiters.append(Waiter(key: key, after: after, resume: resume))
        return .waiting(key: key)
    }

    /// Socket calls up to `id` started. - Returns: the sync calls that waited for them, to
    /// resume with `true`.
    mutating func started(through id: Int64) -> [@Sendable (Bool) -> Void] {
        if waiters.isEmpty { return [] }
        var resumed: [@Sendable (Bool) -> Void] = []
        waiters.removeAll { w in
            guard w.after <= id else { return false }
            resumed.append(w.resume)
            return true
        }
        return resumed
    }

    /// The wait `key` timed out: it leaves the list.
    mutating func stopWaiting(key: Int) {
        waiters.removeAll { $0.key == key }
    }

    /// The session ended. - Returns: every waiter, to resume with `false` (not started).
    mutating func removeAll() -> [@Sendable (Bool) -> Void] {
        defer { waiters.removeAll() }
        return waiters.map(\.resume)
    }
}

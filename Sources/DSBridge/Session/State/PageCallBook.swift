// SPDX-License-Identifier: MIT

/// The calls a page makes on its socket, as a value owned by ``SessionState``: their ids
/// in rising order (a resent call runs once), sync calls that suspended (reads pause at
/// `maxCallsPending`), async calls running (`maxAsyncCalls`) and those a `cancel` can
/// reach, and the session's call rate (`maxCallsPerSecond`).
///
/// The limits are passed in with each event (they are the bridge's configuration); the
/// clock too (`now`). Nothing here runs or cancels a call.
struct PageCallBook: Sendable {
    /// A running async socket call with a stub, for `cancel`. `task` is nil for a method
    /// that started without suspending: nothing to cancel.
    struct Cancellable: Sendable {
        let call: AsyncCall
        let task: Task<Void, Never>?
    }

    /// The highest call id received.
    private(set) var lastCall: Int64 = 0
    /// Sync socket calls that suspended and have not answered (`maxCallsPending`).
    private(set) var pendingCalls = 0
    /// The session's call rate, made at its first counted call.
    private var rate: CallRateLimiter?
    /// Async socket calls running (`maxAsyncCalls`).
    private(set) var runningAsync = 0
    /// Running async calls with a stub, by call id.
    private var cancellable: [Int64: Cancellable] = [:]

    init(lastCall: Int64 = 0) {
        self.lastCall = lastCall
    }

    /// A socket call arrived. - Returns: whether it runs (`false`: a resent call whose id
    /// is not above the last one: it ran already).
    mutating func accept(id: Int64) -> Bool {
        if id <= lastCall { return false }
        lastCall = id
        return true
    }

    /// Counts `count` calls against the rate of `perSecond` at `now` (milliseconds).
    /// - Returns: milliseconds they must wait before they run; 0 means at once.
    mutating func takeTokens(_ count: Int, perSecond: Int, now: Int64) -> Int {
        var limiter = rate ?? CallRateLimiter(perSecond: perSecond, now: now)
        let wait = limiter.take(count, now: now)
        rate = limiter
        return wait
    }

    /// A synchronous socket call suspended. - Returns: whether the session just reached
    /// `maxPending` (pause the socket's reads).
    mutating func pendingStarted(maxPending: Int) -> Bool {
        pendingCalls += 1
        return pendingCalls == maxPending
    }

    /// A suspended synchronous socket call answered. - Returns: whether the session is one
    /// below `maxPending` again (resume the socket's reads).
    mutating func pendingFinished(maxPending: Int) -> Bool {
        pendingCalls -= 1
        return pendingCalls == maxPending - 1
    }

    /// Whether reads of a socket attached now must pause for pending calls.
    func pausesReads(maxPending: Int) -> Bool { pendingCalls >= maxPending }

    /// Admits one more async socket call unless `max` run already.
    mutating func admitAsync(max: Int) -> Bool {
        guard runningAsync < max else { return false }
        runningAsync += 1
        return true
    }

    /// An async call ended; `counted`: it was admitted by ``admitAsync(max:)``.
    mutating func asyncFinished(callID: Int64?, counted: Bool) {
        if counted { runningAsync -= 1 }
        if let callID { cancellable.removeValue(forKey: callID) }
    }

    /// Keeps a running async call for `cancel`, unless it finished meanwhile.
    mutating func keepCancellable(_ call: AsyncCall, task: Task<Void, Never>?, callID: Int64) {
        if call.isRunning { cancellable[callID] = Cancellable(call: call, task: task) }
    }

    /// The running async call `callID`, for `cancel`.
    func cancellableCall(_ callID: Int64) -> Cancellable? { cancellable[callID] }

    /// The session ended. - Returns: the tasks of the calls still running, to cancel.
    mutating func removeCancellable() -> [Task<Void, Never>] {
        defer { cancellable.removeAll() }
        return cancellable.values.compactMap(\.task)
    }
}

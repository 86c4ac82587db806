// SPDX-License-Identifier: MIT

/// Sync HTTP calls (`POST /dsbridge/call`), the call rate, and the order of sync calls
/// after socket calls (PROTOCOL.md 4).
extension BridgeSession {
    /// Counts `count` calls against the session's rate (`maxCallsPerSecond`).
    /// - Returns: milliseconds the calls must wait before they run; 0 means at once.
    /// - Parameters:
    ///   - heldBytes: sync-call body bytes to count as held (``holdSyncBody(_:)``) when the
    ///     calls need not wait, under the same lock.
    ///   - dispatchUptime: the time (`DispatchTime`'s uptime, ns), when the caller read it.
    func takeCallTokens(_ count: Int, thenHold heldBytes: Int = 0, dispatchUptime: UInt64? = nil) -> Int {
        let perSecond = bridge.configuration.maxCallsPerSecond
        guard perSecond > 0, count > 0 else {
            holdSyncBody(heldBytes)
            return 0
        }
        let now = dispatchUptime.map { bridge.executor.uptimeMilliseconds(atDispatchUptime: $0) } ?? bridge.executor.uptimeMilliseconds
        let wait = transition { s in
            let wait = s.takeCallTokens(count, perSecond: perSecond, now: now)
            if wait == 0, heldBytes != 0 { s.holdSyncBody(heldBytes) }
            return wait
        }
        if wait > 0 {
            bridge.metrics.throttled()
            logger.debug("calls over \(perSecond)/s wait \(wait) ms", metadata: ["bridge.session": "\(id)"])
        }
        return wait
    }

    /// Runs a sync HTTP call after the socket calls up to `request.after` started.
    /// - Parameter tokenWait: milliseconds still owed to the call rate, when the caller
    ///   already counted the call (``syncCallOnNetworkThread(_:)``).
    /// - Returns: the call's result for the `{"code","data"}` answer.
    func syncCall(_ request: SyncCallRequest, tokenWait: Int? = nil) async -> Result<JSONValue, CallFailure> {
        holdSyncBody(request.bodyBytes)
        defer { holdSyncBody(-request.bodyBytes) }
        if tokenWait == nil { bridge.metrics.httpSyncCall() }
        let wait = tokenWait ?? takeCallTokens(1)
        if wait > 0 { await bridge.executor.sleep(milliseconds: wait) }
        switch await waitForStarted(through: request.after) {
        case .started:
            break
        case .timedOut:
            return .failure(CallFailure(.timeout, "socket calls up to id \(request.after) did not arrive within \(bridge.configuration.afterTimeoutMs) ms"))
        case .full:
            return .failure(CallFailure(.overloaded, "more than \(Self.maxAfterWaiters) sync calls of this session wait for socket calls"))
        }
        return await withCheckedContinuation { continuation in
            let once = OnceFlag()
            run(
                method: request.method, arg: .raw(request.rawArg),
                reply: .http({ result in
                    if once.claim() { continuation.resume(returning: result) }
                }), trace: request.trace)
        }
    }

    /// What the network thread made of a sync HTTP call (``syncCallOnNetworkThread(_:)``).
    enum NetworkThreadSyncCall: Sendable {
        /// Answered: the result for the `{"code","data"}` answer.
        case answered(Result<JSONValue, CallFailure>)
        /// Started, answered later (the method suspended after all).
        case later(SyncCallAnswer)
        /// Needs a worker: pass `tokenWait` on to ``syncCall(_:tokenWait:)``.
        case needsWorker(tokenWait: Int?)
    }

    /// Runs a sync HTTP call on the network thread when it can: ``InlineDispatchPolicy``
    /// allows its method, the socket calls it must follow started, and the call rate has
    /// room. A method that suspends after all answers later (`.later`).
    func syncCallOnNetworkThread(_ request: SyncCallRequest) -> NetworkThreadSyncCall {
        guard let resolved = InlineDispatchPolicy.route(of: request.method, session: self, registry: bridge.registry) else {
            return .needsWorker(tokenWait: nil)
        }
        if request.after > 0, lastCallID < request.after { return .needsWorker(tokenWait: nil) }
        bridge.metrics.httpSyncCall()
        let wait = takeCallTokens(1, thenHold: request.bodyBytes)
        if wait > 0 { return .needsWorker(tokenWait: wait) }
        // The answer gives the body's bytes back when it comes; the reply closure holds
        // only it (no closure context to allocate).
        let answer = SyncCallAnswer(holding: request.bodyBytes, of: self)
        run(
            method: request.method, arg: .raw(request.rawArg),
            reply: .http({ answer.deliver($0) }), site: .networkThread(bridge.networkThreadGuard), resolved: resolved,
            trace: request.trace)
        // A @nonblocking synchronous method answers before `run` returns; one written by hand
        // might still suspend.
        if let result = answer.result { return .answered(result) }
        return .later(answer)
    }

    /// Counts `bytes` more (negative: fewer) of sync-call bodies held for this session.
    func holdSyncBody(_ bytes: Int) {
        guard bytes != 0 else { return }
        transition { $0.holdSyncBody(bytes) }
    }

    /// Socket calls up to `id` started: the sync calls waiting for them go on.
    func markStarted(through id: Int64) {
        for resume in transition({ $0.markStarted(through: id) }) { resume(true) }
    }

    /// Sync HTTP calls that may wait for socket calls at once, per session; one more is
    /// answered code -1 `overloaded` at once.
    static let maxAfterWaiters = 1_024

    /// How a sync HTTP call's wait for socket calls ended.
    enum AfterWait: Sendable {
        case started, timedOut, full
    }

    /// Sync HTTP calls waiting for socket calls now (tests; leak checks).
    var afterWaiterCount: Int { transition { $0.syncOrder.waiters.count } }

    private func waitForStarted(through after: Int64) async -> AfterWait {
        if after == 0 { return .started }
        let timeout = bridge.configuration.afterTimeoutMs
        return await withCheckedContinuation { continuation in
            let once = OnceFlag()
            let resume: @Sendable (AfterWait) -> Void = { outcome in
                if once.claim() { continuation.resume(returning: outcome) }
            }
            switch transition({ $0.waitForStarted(through: after, resume: { ok in resume(ok ? .started : .timedOut) }) }) {
            case .started: resume(.started)
            case .ended: resume(.timedOut)
            case .full: resume(.full)
            case .waiting(let key):
                bridge.executor.schedule(afterMilliseconds: timeout) { [weak self] in
                    self?.transition { $0.stopWaiting(key: key) }
                    resume(.timedOut)
                }
            }
        }
    }
}

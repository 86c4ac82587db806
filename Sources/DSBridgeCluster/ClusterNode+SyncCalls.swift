// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis
import DSBridgeServer
import Dispatch
import Synchronization

/// Sync HTTP calls (`POST /dsbridge/call`) that reach a node other than the session's: the
/// node that got the request passes it to the owner and relays its answer, so pages need no
/// affinity for them either (docs/CLUSTER.md).
extension ClusterNode {
    /// The longest a forwarded sync call is waited for (the owner's own bounds apply first).
    static let forwardedSyncTimeoutMs = 120_000

    /// How many owners a sync call is tried at while its session moves between nodes.
    static let syncCallOwnersTried = 3

    /// Runs a sync call of a session this node does not hold: at the session's owner, found
    /// in Redis, and relays its answer. A session that moves while the call travels (its
    /// page's socket came back on another node) is followed to its new owner: a call that
    /// no node ran is never answered 401 while some node still holds its session.
    public func forwardSyncCall(
        token: String, body: [UInt8], afterHeader: String?, traceparent: String?,
        answer: @escaping @Sendable (ForwardedSyncCall) -> Void
    ) {
        let call = ForwardedSync(token: token, body: body, after: afterHeader, traceparent: traceparent)
        routeSyncCall(call, tried: nil, triesLeft: Self.syncCallOwnersTried, answer: answer)
    }

    /// A sync call on its way to its session's owner.
    private struct ForwardedSync: Sendable {
        let token: String
        let body: [UInt8]
        let after: String?
        let traceparent: String?
    }

    /// Looks the owner up and runs `call` there; `tried` is the owner that answered "not
    /// here" last (asked again only if Redis names another one).
    private func routeSyncCall(
        _ call: ForwardedSync, tried: String?, triesLeft: Int, answer: @escaping @Sendable (ForwardedSyncCall) -> Void
    ) {
        messenger.send([ClusterScripts.ownerByTokenScript.evalSHA(arguments: [call.token])]) { [self] result in
            guard case .success(let replies) = result else { return answer(.unavailable("cluster unavailable")) }
            let found = replies.first?.arrayValue ?? []
            guard let owner = found.first?.stringValue, owner != tried else { return answer(.unknownToken) }
            let incarnation = found.dropFirst().first?.stringValue ?? ""
            // "Not here" from an owner that let the session go meanwhile: ask the next one.
            let followed: @Sendable (ForwardedSyncCall) -> Void = { [self] r in
                guard case .unknownToken = r, triesLeft > 1 else { return answer(r) }
                routeSyncCall(call, tried: owner, triesLeft: triesLeft - 1, answer: answer)
            }
            guard owner != nodeID else {
                // This node is the owner but did not know the session a moment ago: a takeover
                // here may be restoring it.
                return journal.whenRestoresEnd { [self] in
                    Task { followed(await syncCallHere(token: call.token, body: call.body, after: call.after, traceparent: call.traceparent)) }
                }
            }
            let req = nextRequest()
            let once = Atomic<Bool>(false)
            let finish: @Sendable (ForwardedSyncCall) -> Void = { r in if !once.exchange(true, ordering: .acquiringAndReleasing) { followed(r) } }
            let deadline = afterDelay(milliseconds: Self.forwardedSyncTimeoutMs) { [self] in
                takeSync(req)?(.unavailable("node \(owner) did not answer"))
            }
            pending.withLock {
                $0.syncs[req] = finish
                $0.syncDeadlines[req] = deadline
                $0.syncOwners[req] = (owner, incarnation, DispatchTime.now().uptimeNanoseconds)
            }
            let message = NodeMessage.sync(
                req: req, from: nodeID, token: call.token, body: String(decoding: call.body, as: UTF8.self), after: call.after,
                traceparent: call.traceparent)
            publish(message, to: owner) { [self] delivered in
                if !delivered, let f = takeSync(req) { f(.unavailable("node \(owner) of the session is down")) }
            }
        }
    }

    /// Runs a sync call another node passed on, once a takeover of its session under way
    /// here (if any) has restored it: the other node found this one named as the owner.
    func runForwardedSync(req: Int64, from: String, token: String, body: String, after: String?, traceparent: String?) {
        journal.whenRestoresEnd { [self] in
            Task { [self] in
                let reply: String?
                switch await syncCallHere(token: token, body: Array(body.utf8), after: after, traceparent: traceparent) {
                case .answered(let bytes): reply = String(decoding: bytes, as: UTF8.self)
                case .unknownToken, .unavailable: reply = nil
                }
                publish(.synced(req: req, body: reply), to: from)
            }
        }
    }

    /// Runs a sync call of a session of this node (it may wait for socket calls, PROTOCOL 4).
    /// - Returns: the answer's body, or `.unknownToken` when the session is not here.
    private func syncCallHere(token: String, body: [UInt8], after: String?, traceparent: String?) async -> ForwardedSyncCall {
        let bridge = self.bridge
        var request: SyncCallRequest
        do {
            request = try SyncCallRequest(body: body, afterHeader: after, maxDepth: bridge.configuration.maxDepth)
            request.trace = traceparent.flatMap { TraceContext(traceparent: $0) }
        } catch {
            return .answered(SyncCallRequest.answerBody(.failure(CallFailure(.badArgument, error.reason))))
        }
        guard let result = await bridge.syncCall(token: token, request: request) else { return .unknownToken }
        return .answered(SyncCallRequest.answerBody(result))
    }

    /// The owner's answer to sync request `req`.
    func syncAnswered(req: Int64, body: String?) {
        guard let finish = takeSync(req) else { return }
        finish(body.map { .answered(Array($0.utf8)) } ?? .unknownToken)
    }

    /// Every second, once the other nodes' records were read (the read started at
    /// `readFrom`, uptime ns): the sync calls forwarded before that to a node that is gone
    /// (no record, or another incarnation: it was started again) answer 503 now, not when
    /// their deadline comes: the owner died while the call ran there, and nothing will
    /// answer it. (A call forwarded after the read began may name a node that joined since.)
    func failSyncCallsOfLostNodes(readFrom: UInt64) {
        let live = liveIncarnations.withLock { $0 }
        let lost = pending.withLock { p in
            p.syncOwners.filter { _, owner in
                owner.since < readFrom && (live[owner.node].map { $0 != owner.incarnation } ?? true)
            }
        }
        for (req, owner) in lost { takeSync(req)?(.unavailable("node \(owner.node) of the session is down")) }
    }

    /// Forwarded sync call `req` ended (answered, undeliverable or timed out): its deadline
    /// is called off. - Returns: what finishes it, if nothing did yet.
    private func takeSync(_ req: Int64) -> (@Sendable (ForwardedSyncCall) -> Void)? {
        let (finish, deadline) = pending.withLock {
            $0.syncOwners.removeValue(forKey: req)
            return ($0.syncs.removeValue(forKey: req), $0.syncDeadlines.removeValue(forKey: req))
        }
        if let deadline { DelayedWork.shared.cancel(deadline) }
        return finish
    }
}

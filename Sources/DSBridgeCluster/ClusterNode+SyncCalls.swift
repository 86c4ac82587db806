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

    public func forwardSyncCall(
        token: String, body: [UInt8], afterHeader: String?, traceparent: String?,
        answer: @escaping @Sendable (ForwardedSyncCall) -> Void
    ) {
        messenger.send([ClusterScripts.ownerByTokenScript.evalSHA(arguments: [token])]) { [self] result in
            guard case .success(let replies) = result else { return answer(.unavailable("cluster unavailable")) }
            guard let owner = replies.first?.stringValue, owner != nodeID else { return answer(.unknownToken) }
            let req = nextRequest()
            let once = Atomic<Bool>(false)
            let finish: @Sendable (ForwardedSyncCall) -> Void = { r in if !once.exchange(true, ordering: .acquiringAndReleasing) { answer(r) } }
            pending.withLock { $0.syncs[req] = finish }
            let message = NodeMessage.sync(
                req: req, from: nodeID, token: token, body: String(decoding: body, as: UTF8.self), after: afterHeader,
                traceparent: traceparent)
            publish(message, to: owner) { [self] delivered in
                if !delivered, let f = pending.withLock({ $0.syncs.removeValue(forKey: req) }) {
                    f(.unavailable("node \(owner) of the session is down"))
                }
            }
            queue.asyncAfter(deadline: .now() + .milliseconds(Self.forwardedSyncTimeoutMs)) { [self] in
                pending.withLock { $0.syncs.removeValue(forKey: req) }?(.unavailable("node \(owner) did not answer"))
            }
        }
    }

    /// Runs a sync call another node passed on (on a task: it may wait for socket calls).
    func runForwardedSync(req: Int64, from: String, token: String, body: String, after: String?, traceparent: String?) {
        let bridge = self.bridge
        var request: SyncCallRequest
        do {
            request = try SyncCallRequest(body: Array(body.utf8), afterHeader: after, maxDepth: bridge.configuration.maxDepth)
            request.trace = traceparent.flatMap { TraceContext(traceparent: $0) }
        } catch {
            let failure = CallFailure(.badArgument, error.reason)
            return publish(.synced(req: req, body: String(decoding: SyncCallRequest.answerBody(.failure(failure)), as: UTF8.self)), to: from)
        }
        Task { [self] in
            let result = await bridge.syncCall(token: token, request: request)
            let reply = result.map { String(decoding: SyncCallRequest.answerBody($0), as: UTF8.self) }
            publish(.synced(req: req, body: reply), to: from)
        }
    }

    /// The owner's answer to sync request `req`.
    func syncAnswered(req: Int64, body: String?) {
        guard let finish = pending.withLock({ $0.syncs.removeValue(forKey: req) }) else { return }
        finish(body.map { .answered(Array($0.utf8)) } ?? .unknownToken)
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis
import DSBridgeServer
import Dispatch
import Synchronization

/// The admin API across nodes (``ClusterRouter``): the same answers as PROTOCOL.md 6 gives
/// for this node's own sessions; 503 when Redis cannot be reached or the session's node is
/// down.
extension ClusterNode {
    public func listSessions(local: [JSONValue], answer: @escaping @Sendable (AdminReply) -> Void) {
        listSessions(local: local) { result in
            switch result {
            case .success(let all): answer(AdminReply(status: 200, body: .array(all)))
            case .failure(let error): answer(Self.reply(error))
            }
        }
    }

    /// `answer` must not block: it may run on the thread that reads the page's answer.
    public func callSession(
        id: String, request: Result<AdminCallRequest, ProtocolViolation>, answer: @escaping @Sendable (AdminReply) -> Void
    ) {
        switch request {
        case .success(let request):
            callJavaScript(
                inSession: id, request.method, args: request.args, timeout: .milliseconds(request.timeoutMs), answersInline: true,
                handler: AdminCallAnswer.handler(answer: answer), refused: { answer(Self.reply($0)) })
        case .failure(let violation):
            // 404 is checked before 400.
            messenger.send([RedisCommand("EXISTS", ClusterKeys.session(id))]) { result in
                switch result {
                case .success(let r) where r.first?.integerValue == 1:
                    answer(AdminReply(status: 400, body: ["error": .string(violation.reason)]))
                case .success: answer(Self.reply(.unknownSession))
                case .failure(let error): answer(Self.reply(.clusterUnavailable(error.description)))
                }
            }
        }
    }

    public func traceSession(id: String, answer: @escaping @Sendable (AdminReply) -> Void) {
        messenger.send([RedisCommand("HGET", ClusterKeys.session(id), "node")]) { [self] result in
            guard case .success(let r) = result else { return answer(Self.reply(ClusterCallError.unavailable(result))) }
            guard let owner = r.first?.stringValue, owner != nodeID else { return answer(Self.reply(.unknownSession)) }
            let req = nextRequest()
            let once = Atomic<Bool>(false)
            let finish: @Sendable (JSONValue?) -> Void = { body in
                guard !once.exchange(true, ordering: .acquiringAndReleasing) else { return }
                answer(body.map { AdminReply(status: 200, body: $0) } ?? Self.reply(.awaitingPage(owner)))
            }
            pending.withLock { $0.traces[req] = finish }
            publish(.trace(req: req, from: nodeID, session: id), to: owner) { [self] delivered in
                if !delivered, pending.withLock({ $0.traces.removeValue(forKey: req) }) != nil {
                    answer(Self.reply(.nodeDown(owner)))
                }
            }
            afterDelay(milliseconds: 2_000) { [self] in
                if pending.withLock({ $0.traces.removeValue(forKey: req) }) != nil { answer(Self.reply(.nodeDown(owner))) }
            }
        }
    }

    /// `answer` must not block: it may run on the thread that reads a page's answer.
    public func callGroup(tag: String, request: AdminCallRequest, answer: @escaping @Sendable (AdminReply) -> Void) {
        callGroup(tag: tag, request: request) { result in
            switch result {
            case .success(let results): answer(AdminReply(status: 200, body: ["results": .array(results.map(\.json))]))
            case .failure(let error): answer(Self.reply(error))
            }
        }
    }

    /// The admin answer for a call that could not start.
    static func reply(_ error: ClusterCallError) -> AdminReply {
        switch error {
        case .unknownSession: return AdminReply(status: 404, body: ["error": "unknown session"])
        case .draining: return AdminReply(status: 503, body: ["error": "draining"])
        case .nodeDown, .awaitingPage, .clusterUnavailable, .lostBeforeDelivery:
            return AdminReply(status: 503, body: ["error": .string(error.description)])
        case .call(let e): return AdminReply(status: 500, body: ["error": .string(e.description)])
        }
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis
import DSBridgeServer

/// What other nodes tell this one (docs/CLUSTER.md, "Node messages"). Runs on the
/// subscriber's thread: nothing here blocks; application code goes to the executor.
extension ClusterNode {
    func receive(_ payload: [UInt8]) {
        guard let messages = NodeMessage.messages(in: payload) else {
            logger.warning("cluster: a node message could not be read (\(payload.count) bytes)")
            return
        }
        for message in messages {
            guard let message else {
                logger.warning("cluster: a node message could not be read (one of \(messages.count) in \(payload.count) bytes)")
                continue
            }
            receive(message)
        }
    }

    private func receive(_ message: NodeMessage) {
        switch message {
        case .call(let id, let method, let args, let timeoutMs, let origin):
            runCall(session: id, method: method, args: args, timeoutMs: timeoutMs, origin: origin)
        case .answer(let ref, let event, let call):
            if case .progress = event {} else { callOff(ref) }
            bridge.deliverForwardedAnswer(ref: ref, event, pageCall: call)
        case .refused(let ref, let status):
            guard let refused = callOff(ref) else {
                // A call of this node's own that its session passed on as it moved
                // (``RedisJournal/passLate(_:of:)``) found no session at the new owner: no
                // node carries it any more, so it ends now rather than at its deadline. (A
                // handler that already had its final event is gone: nothing happens.)
                bridge.deliverForwardedAnswer(ref: ref, .failed(.sessionEnded))
                return
            }
            bridge.forgetNativeCallHandler(ref: ref)
            switch status {
            case 503: refused(.draining)
            case NodeMessage.awaitingPageStatus: refused(.awaitingPage(""))  // the caller names the node
            default: refused(.unknownSession)
            }
        case .list(let req, let from):
            withWaiting(localListing()) { [self] all in publish(.listed(req: req, node: nodeID, sessions: all), to: from) }
        case .listed(let req, let node, let sessions):
            listed(req: req, node: node, sessions: sessions)
        case .group(let req, let from, let ids, let method, let args, let timeoutMs):
            callLocalGroup(ids, request: AdminCallRequest(method: method, args: args, timeoutMs: timeoutMs)) { [self] results in
                publish(.grouped(req: req, results: results.map(\.json)), to: from)
            }
        case .grouped(let req, let results):
            grouped(req: req, results: results)
        case .sync(let req, let from, let token, let body, let after, let traceparent):
            runForwardedSync(req: req, from: from, token: token, body: body, after: after, traceparent: traceparent)
        case .synced(let req, let body):
            syncAnswered(req: req, body: body)
        case .push(let id, let method, let args, let count):
            for _ in 0..<min(count, 5_000) {
                callJavaScript(
                    inSession: id, method, args: args,
                    handler: { [self] event in
                        switch event {
                        case .progress: break
                        case .completed: pushed.record(success: true)
                        case .failed: pushed.record(success: false)
                        }
                    }, refused: { [self] _ in pushed.record(success: false) })
            }
        case .trace(let req, let from, let id):
            let local = bridge.session(id: id).flatMap { $0.hasMoved ? nil : $0 }
            publish(.traced(req: req, body: local.map { AdminTrace.recentCalls($0, node: nodeID) }), to: from)
        case .traced(let req, let body):
            pending.withLock { $0.traces.removeValue(forKey: req) }?(body)
        case .metrics(let req, let from):
            let text = localMetrics()
            publish(.metricsText(req: req, text: text.map { String(decoding: $0, as: UTF8.self) }), to: from)
        case .metricsText(let req, let text):
            pending.withLock { $0.metrics.removeValue(forKey: req) }?(text)
        case .moved(let id):
            bridge.session(id: id)?.moveAway()
        case .late(let id):
            journal.lateArrived(for: id)
        }
    }

    /// Another node's call into a session here: answers go back to `origin` (`NODE|REF`),
    /// which also becomes the call's origin in the journal, so that after a move the page's
    /// answers go straight there.
    private func runCall(session id: String, method: String, args: RawJSON, timeoutMs: Int, origin: String) {
        guard let parsed = CallOrigin(parsing: origin) else { return }
        let (from, ref) = (parsed.node, parsed.ref)
        let run: @Sendable (BridgeSession) -> Void = { [self] session in
            // A draining node takes the call even when the drain closed the page's socket: the
            // invoke is journaled with the session and goes with it to the node its page
            // resumes on, whose answer reaches `origin` (PROTOCOL.md 10.2; only a call asked
            // on the draining node itself answers 503 "draining").
            let forward = journal.forwarder(to: parsed)
            // The forwarder to another node only publishes: the thread that reads the page's
            // answer may run it. (To this node it runs the caller's handler: not inline.)
            session.callJavaScript(
                method, args: args, timeout: .milliseconds(timeoutMs), origin: origin, answersInline: from != nodeID,
                handler: forward)
        }
        if let session = bridge.session(id: id), !session.hasMoved { return run(session) }
        // Not here: a takeover here may be restoring it (Redis names this node already);
        // else a session of this node's former process (it waits for its page), or none.
        journal.whenRestoresEnd { [self] in
            if let session = bridge.session(id: id), !session.hasMoved { return run(session) }
            messenger.send([RedisCommand("HGET", ClusterKeys.session(id), "node")]) { [self] result in
                let waiting = (try? result.get())?.first?.stringValue == nodeID
                publish(.refused(ref: ref, status: waiting ? NodeMessage.awaitingPageStatus : 404), to: from)
            }
        }
    }

    /// A remote call `ref` had its final answer or a refusal: it may not be refused any
    /// more and its deadline is called off. - Returns: its refusal handler, if it still had one.
    @discardableResult
    func callOff(_ ref: Int64) -> (@Sendable (ClusterCallError) -> Void)? {
        let (refused, deadline) = pending.withLock {
            $0.remoteOwners.removeValue(forKey: ref)
            return ($0.refusals.removeValue(forKey: ref), $0.deadlines.removeValue(forKey: ref))
        }
        if let deadline { DelayedWork.shared.cancel(deadline) }
        return refused
    }

    /// This node's sessions as `GET /admin/sessions` lists them, each with `node`.
    func localListing() -> [JSONValue] {
        AdminListing.sessions(bridge.sessions.filter { !$0.hasMoved }, node: nodeID)
    }

    private func listed(req: Int64, node: String, sessions: [JSONValue]) {
        let done = pending.withLock { ListWait.answer(req, in: &$0.lists, from: node, parts: sessions) }
        done?.finish()
    }

    private func grouped(req: Int64, results: [JSONValue]) {
        let parsed = results.compactMap { r -> GroupCallResult? in
            guard case .object(let o) = r, let s = o["session"]?.stringValue, let n = o["node"]?.stringValue,
                let status = o["status"]?.integerValue, let body = o["body"]
            else { return nil }
            return GroupCallResult(session: s, node: n, status: Int(status), body: body)
        }
        let done = pending.withLock { GroupWait.answer(req, in: &$0.groups, from: parsed.first?.node, parts: parsed) }
        done?.finish()
    }

    /// Calls the sessions `ids` of this node (those it has); answers once all did.
    func callLocalGroup(
        _ ids: [String], request: AdminCallRequest, answer: @escaping @Sendable ([GroupCallResult]) -> Void
    ) {
        let node = nodeID
        var sessions: [BridgeSession] = []
        var missing: [GroupCallResult] = []
        for id in ids {
            if let s = bridge.session(id: id), !s.hasMoved {
                sessions.append(s)
            } else {
                missing.append(GroupCallResult(session: id, node: node, status: 404, body: ["error": "unknown session"]))
            }
        }
        guard !sessions.isEmpty else { return answer(missing) }
        let collected = Collector<GroupCallResult>(expecting: sessions.count, initial: missing, done: answer)
        for s in sessions {
            // The collector hands the results on without blocking (a node message, an HTTP
            // answer, a continuation): the thread that reads the page's answer runs it.
            s.callJavaScript(
                request.method, args: request.args, timeout: .milliseconds(request.timeoutMs), origin: nil, answersInline: true,
                handler: AdminCallAnswer.handler { reply in
                    collected.add(GroupCallResult(session: s.id, node: node, status: reply.status, body: reply.body))
                })
        }
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis
import DSBridgeServer
import Dispatch
import Synchronization

/// Calls into sessions on any node, group calls and cluster-wide listings: the Swift API and
/// the admin API's answers (PROTOCOL.md 6, docs/CLUSTER.md).
extension ClusterNode {
    // MARK: Swift API

    /// Calls the JavaScript `method` in session `id`, wherever it lives. `handler` receives
    /// progress values then exactly one final event, as with
    /// ``BridgeSession/callJavaScript(_:args:timeout:handler:)``; `refused` is called
    /// instead when the call could not start (unknown session, node down, draining, Redis
    /// unreachable).
    public func callJavaScript(
        inSession id: String, _ method: String, args: [JSONValue] = [], timeout: Duration = .seconds(30),
        handler: @escaping NativeCallHandler, refused: @escaping @Sendable (ClusterCallError) -> Void
    ) {
        callJavaScript(inSession: id, method, args: args, timeout: timeout, answersInline: false, handler: handler, refused: refused)
    }

    /// `answersInline`: `handler` never blocks and runs no application code, so in a session
    /// of this node the thread that reads the page's answer runs it (answers from another
    /// node run it on the thread that reads them in any case).
    func callJavaScript(
        inSession id: String, _ method: String, args: [JSONValue], timeout: Duration, answersInline: Bool,
        handler: @escaping NativeCallHandler, refused: @escaping @Sendable (ClusterCallError) -> Void
    ) {
        let timeoutMs = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        if let session = bridge.session(id: id), !session.hasMoved {
            if isDraining(), !session.isConnected { return refused(.draining) }
            session.callJavaScript(method, args: args, timeout: timeout, origin: nil, answersInline: answersInline, handler: handler)
            return
        }
        // The owner last seen: one round trip less. A refusal (the session moved or ended) or
        // a node that is down is asked about again, once.
        if let owner = owners.owner(of: id) {
            callRemote(
                id, owner: owner, method: method, args: args, timeoutMs: timeoutMs, handler: handler,
                refused: { [self] error in
                    owners.forget(id)
                    switch error {
                    case .unknownSession, .nodeDown, .awaitingPage:
                        lookUpAndCall(
                            id, method: method, args: args, timeout: timeout, answersInline: answersInline, handler: handler,
                            refused: refused)
                    default: refused(error)
                    }
                })
            return
        }
        lookUpAndCall(id, method: method, args: args, timeout: timeout, answersInline: answersInline, handler: handler, refused: refused)
    }

    /// Reads the session's owner from Redis, then calls there.
    private func lookUpAndCall(
        _ id: String, method: String, args: [JSONValue], timeout: Duration, answersInline: Bool,
        handler: @escaping NativeCallHandler, refused: @escaping @Sendable (ClusterCallError) -> Void
    ) {
        let timeoutMs = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        messenger.send([RedisCommand("HGET", ClusterKeys.session(id), "node")]) { [self] result in
            let owner: String
            switch result {
            case .failure(let error): return refused(.clusterUnavailable(error.description))
            case .success(let replies):
                guard let node = replies.first?.stringValue else { return refused(.unknownSession) }
                owner = node
            }
            if owner == nodeID {
                // The record names this node but the session is not here: a takeover is
                // finishing (wait for it, then ask the bridge once more), or it is a session
                // of this node's former process, waiting for its page.
                return journal.whenRestoresEnd { [self] in
                    guard let session = bridge.session(id: id), !session.hasMoved else { return refused(.awaitingPage(nodeID)) }
                    session.callJavaScript(
                        method, args: args, timeout: timeout, origin: nil, answersInline: answersInline, handler: handler)
                }
            }
            owners.remember(owner, of: id)
            callRemote(id, owner: owner, method: method, args: args, timeoutMs: timeoutMs, handler: handler, refused: refused)
        }
    }

    /// Sends the call to `owner`; its answers come back by the handler's number.
    private func callRemote(
        _ id: String, owner: String, method: String, args: [JSONValue], timeoutMs: Int,
        handler: @escaping NativeCallHandler, refused: @escaping @Sendable (ClusterCallError) -> Void
    ) {
        let bridge = self.bridge
        let registered = bridge.registerNativeCallHandler(handler)
        let ref = registered.ref
        // The owner times the call out; this deadline only covers an owner that died. Kept
        // with the refusal before the call goes out, so its answer finds both.
        let deadline = afterDelay(milliseconds: timeoutMs + 2_000) { [self] in
            callOff(ref)
            bridge.deliverForwardedAnswer(ref: ref, .failed(.timeout))
        }
        let incarnation = liveIncarnations.withLock { $0[owner] }
        pending.withLock {
            $0.refusals[ref] = { error in
                if case .awaitingPage = error { refused(.awaitingPage(owner)) } else { refused(error) }
            }
            $0.deadlines[ref] = deadline
            $0.remoteOwners[ref] = RemoteCallOwner(
                session: id, node: owner, incarnation: incarnation, since: DispatchTime.now().uptimeNanoseconds)
        }
        let message = NodeMessage.call(
            session: id, method: method, args: RawJSON(.array(args)), timeoutMs: timeoutMs, origin: "\(nodeID)|\(ref)")
        publish(message, to: owner) { [self] delivered in
            guard !delivered, let refused = callOff(ref) else { return }
            bridge.forgetNativeCallHandler(ref: ref)
            refused(.nodeDown(owner))
        }
    }

    /// ``callJavaScript(inSession:_:args:timeout:handler:refused:)`` awaiting the final
    /// value; `progress` gets the values before it.
    public func call(
        session id: String, _ method: String, args: [JSONValue] = [], timeout: Duration = .seconds(30),
        progress: (@Sendable (JSONValue) -> Void)? = nil
    ) async -> Result<JSONValue, ClusterCallError> {
        await withCheckedContinuation { (c: CheckedContinuation<Result<JSONValue, ClusterCallError>, Never>) in
            let once = Atomic<Bool>(false)
            let finish: @Sendable (Result<JSONValue, ClusterCallError>) -> Void = { r in
                if !once.exchange(true, ordering: .acquiringAndReleasing) { c.resume(returning: r) }
            }
            callJavaScript(
                inSession: id, method, args: args, timeout: timeout,
                handler: { event in
                    switch event {
                    case .progress(let v): progress?(v)
                    case .completed(let v): finish(.success(v))
                    case .failed(let e): finish(.failure(.call(e)))
                    }
                },
                refused: { finish(.failure($0)) })
        }
    }

    /// Calls `method` in every session tagged `tag`, on every node: one result per session,
    /// with the status and body a session call would have answered (PROTOCOL.md 6).
    public func callGroup(
        tag: String, _ method: String, args: [JSONValue] = [], timeout: Duration = .seconds(30)
    ) async -> Result<[GroupCallResult], ClusterCallError> {
        let ms = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return await withCheckedContinuation { c in
            callGroup(tag: tag, request: AdminCallRequest(method: method, args: args, timeoutMs: ms)) { c.resume(returning: $0) }
        }
    }

    /// Every session of the cluster as `GET /admin/sessions` lists them, each with `node`.
    public func listSessions() async -> Result<[JSONValue], ClusterCallError> {
        await withCheckedContinuation { c in listSessions(local: localListing()) { c.resume(returning: $0) } }
    }

    // MARK: group calls and listings

    func callGroup(
        tag: String, request: AdminCallRequest, done: @escaping @Sendable (Result<[GroupCallResult], ClusterCallError>) -> Void
    ) {
        messenger.send([RedisCommand("SMEMBERS", ClusterKeys.tag(tag))]) { [self] result in
            guard case .success(let r) = result, let members = r.first?.arrayValue else {
                return done(.failure(ClusterCallError.unavailable(result)))
            }
            let ids = members.compactMap(\.stringValue)
            guard !ids.isEmpty else { return done(.success([])) }
            messenger.send(ids.map { RedisCommand("HGET", ClusterKeys.session($0), "node") }) { [self] result in
                guard case .success(let owners) = result, owners.count == ids.count else {
                    return done(.failure(ClusterCallError.unavailable(result)))
                }
                var byNode: [String: [String]] = [:]
                var stale: [String] = []
                for (id, owner) in zip(ids, owners) {
                    if let node = owner.stringValue { byNode[node, default: []].append(id) } else { stale.append(id) }
                }
                if !stale.isEmpty { messenger.send([RedisCommand("SREM", arguments: [ClusterKeys.tag(tag)] + stale)]) { _ in } }
                fanOut(byNode, request: request, done: done)
            }
        }
    }

    /// Runs a group call's parts: this node's sessions here, each other node's there (a node
    /// that is down, or does not answer in time, gives 503 for its sessions).
    private func fanOut(
        _ byNode: [String: [String]], request: AdminCallRequest,
        done: @escaping @Sendable (Result<[GroupCallResult], ClusterCallError>) -> Void
    ) {
        guard !byNode.isEmpty else { return done(.success([])) }
        let all = Collector<[GroupCallResult]>(expecting: byNode.count) { parts in done(.success(parts.flatMap { $0 })) }
        for (node, ids) in byNode {
            if node == nodeID {
                callLocalGroup(ids, request: request) { all.add($0) }
                continue
            }
            let down = ids.map { GroupCallResult(session: $0, node: node, status: 503, body: ["error": .string(ClusterCallError.nodeDown(node).description)]) }
            let req = nextRequest()
            let once = Atomic<Bool>(false)
            let part: @Sendable ([GroupCallResult]) -> Void = { r in if !once.exchange(true, ordering: .acquiringAndReleasing) { all.add(r) } }
            pending.withLock { $0.groups[req] = GroupWait(waitingFor: [node], parts: [], done: part) }
            let message = NodeMessage.group(
                req: req, from: nodeID, sessions: ids, method: request.method, args: request.args, timeoutMs: request.timeoutMs)
            publish(message, to: node) { [self] delivered in
                if !delivered, pending.withLock({ $0.groups.removeValue(forKey: req) }) != nil { part(down) }
            }
            afterDelay(milliseconds: request.timeoutMs + 2_000) { [self] in
                if pending.withLock({ $0.groups.removeValue(forKey: req) }) != nil { part(down) }
            }
        }
    }

    /// The whole cluster's listing: this node's (`local`, plus its sessions waiting in Redis
    /// for their page: a node started again under its name), every node that listens on its
    /// channel answering for itself (at most 2 s), and the sessions of nodes that do not
    /// (dead, or not subscribed) read from Redis, not connected.
    func listSessions(local: [JSONValue], done: @escaping @Sendable (Result<[JSONValue], ClusterCallError>) -> Void) {
        messenger.send([RedisCommand("SMEMBERS", ClusterKeys.nodes)]) { [self] result in
            guard case .success(let r) = result, let members = r.first?.arrayValue else {
                return done(.failure(ClusterCallError.unavailable(result)))
            }
            let others = members.compactMap(\.stringValue).filter { $0 != nodeID }
            let parts = Collector<[JSONValue]>(expecting: 2) { done(.success($0.flatMap { $0 })) }
            withWaiting(local) { parts.add($0) }
            askOthers(others) { [self] answered, silent in
                listFromRedis(silent) { parts.add(answered + $0) }
            }
        }
    }

    /// This node's listing: `local`, plus the sessions Redis says it owns that it does not
    /// hold (left by its former process), not connected.
    func withWaiting(_ local: [JSONValue], done: @escaping @Sendable ([JSONValue]) -> Void) {
        let held = Set(local.compactMap { $0["session"]?.stringValue })
        listFromRedis([nodeID], excluding: held) { done(local + $0) }
    }

    /// Asks `nodes` for their listings; `done` gets what came (within 2 s) and the nodes
    /// nobody listened for or that did not answer in time.
    private func askOthers(_ nodes: [String], done: @escaping @Sendable ([JSONValue], [String]) -> Void) {
        guard !nodes.isEmpty else { return done([], []) }
        let req = nextRequest()
        let silent = Mutex<[String]>([])
        let once = Atomic<Bool>(false)
        let finish: @Sendable ([JSONValue]) -> Void = { s in
            if !once.exchange(true, ordering: .acquiringAndReleasing) { done(s, silent.withLock { $0 }) }
        }
        pending.withLock { $0.lists[req] = ListWait(waitingFor: Set(nodes), parts: [], done: finish) }
        for node in nodes {
            publish(.list(req: req, from: nodeID), to: node) { [self] delivered in
                guard !delivered else { return }
                silent.withLock { $0.append(node) }
                let complete = pending.withLock { ListWait.answer(req, in: &$0.lists, from: node) }
                complete?.finish()
            }
        }
        afterDelay(milliseconds: 2_000) { [self] in
            guard let late = pending.withLock({ $0.lists.removeValue(forKey: req) }) else { return }
            // Nodes that did not answer in time (frozen, overloaded, dying) are listed from
            // Redis like dead ones, rather than left out.
            silent.withLock { $0.append(contentsOf: late.waitingFor.sorted()) }
            late.finish()
        }
    }

    /// The sessions Redis says `nodes` own (but `excluding`), not connected: nodes that are
    /// dead or silent, whose sessions wait for their pages to resume elsewhere. `queued`
    /// comes from the journal, whose acknowledgements are written lazily (up to 31 behind);
    /// `calls` is 0 (calls are counted on the node that runs them).
    private func listFromRedis(
        _ nodes: [String], excluding: Set<String> = [], done: @escaping @Sendable ([JSONValue]) -> Void
    ) {
        guard !nodes.isEmpty else { return done([]) }
        messenger.send(nodes.map { RedisCommand("SMEMBERS", ClusterKeys.nodeSessions($0)) }) { [self] result in
            guard case .success(let sets) = result else { return done([]) }
            var found: [(node: String, id: String)] = []
            for (node, set) in zip(nodes, sets) {
                found += (set.arrayValue?.compactMap(\.stringValue) ?? []).filter { !excluding.contains($0) }.map { (node, $0) }
            }
            let pairs = found
            guard !pairs.isEmpty else { return done([]) }
            let fields = ["node", "origin", "since", "ready", "lastSeq", "acked"]
            messenger.send(pairs.map { RedisCommand("HMGET", arguments: [ClusterKeys.session($0.id)] + fields) }) { result in
                guard case .success(let records) = result else { return done([]) }
                var out: [JSONValue] = []
                for (pair, record) in zip(pairs, records) {
                    guard let v = record.arrayValue, v.count == fields.count, v[0].stringValue == pair.node else { continue }
                    let since = Int64(v[2].stringValue ?? "") ?? 0
                    let queued = (Int64(v[4].stringValue ?? "") ?? 0) - (Int64(v[5].stringValue ?? "") ?? 0)
                    let origin = v[1].stringValue.flatMap { $0.isEmpty ? nil : JSONValue.string($0) } ?? .null
                    out.append([
                        "session": .string(pair.id), "connected": false, "ready": .bool(v[3].stringValue == "1"),
                        "origin": origin, "since": .string(RFC3339.format(milliseconds: since)),
                        "queued": .integer(max(0, queued)), "calls": 0, "node": .string(pair.node),
                    ])
                }
                done(out)
            }
        }
    }
}

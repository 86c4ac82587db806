// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis
import Logging
import Synchronization

/// The cluster's journal on Redis (docs/CLUSTER.md): sessions write ahead here, so that
/// another node can continue them. Writes go out in group commit: every session that
/// changed since the last round trip is written in the next one (one script call each),
/// through one ``RedisClient`` whose thread builds the round when it is about to write it.
///
/// Threads: every method may be called from any thread. Replies are handled on the client's
/// thread without blocking; anything that may run application code goes to the bridge's
/// executor.
public final class RedisJournal: SessionJournal {
    public let nodeID: String
    /// This process as the runner of calls: `NAME#INCARNATION`, the incarnation new at each
    /// start, so that calls of a node killed and started again under its name are seen lost.
    public let runnerID: String
    /// The incarnation part of ``runnerID`` (the node's record says it too).
    public let incarnation: String
    let client: RedisClient
    /// Where node messages go (not behind journal rounds).
    let messenger: RedisClient
    /// Every node message goes out through it (messages for a node keep their order).
    let publisher: NodeMessagePublisher
    let logger: Logger
    /// The records' time to live: the grace period, plus the renewal interval (a third of
    /// it: a node that dies just before its renewal leaves keys that were renewed that long
    /// ago), plus a margin. A page whose node died can thus resume for at least `graceMs`.
    let ttlMs: Int

    struct State: Sendable {
        var bridge: Bridge?
        var dirty: [BridgeSession] = []
        /// A round is queued with the client and has not been built yet, or is due at the
        /// end of the network thread's pass (`roundAtPassEnd`).
        var roundQueued = false
        /// The network thread asked for the queued round: it goes to the client when the
        /// thread's pass ends (``serviceLoopPassEnded()``).
        var roundAtPassEnd = false
        /// The epoch this node holds of each session it owns (1 for sessions made here).
        var epochs: [String: Int] = [:]
        /// Per session: late items read and appended here whose trim is not written yet.
        var untrimmedLate: [String: Int] = [:]
        /// Sessions whose late list is to be read in the next round.
        var lateDue: Set<String> = []
        /// Calls of other nodes still open in sessions this node owns: node → session → calls.
        var watched: [String: [String: [(id: Int64, entry: RunEntry)]]] = [:]
        /// Late messages that could not be passed on yet (Redis unreachable), retried.
        var latePending: [(session: String, items: [[UInt8]])] = []
        /// Answers to other nodes' native calls whose round failed (Redis unreachable):
        /// published again with the next round (their origins drop one they had).
        var answersToRetry: [PassedAnswer] = []
        /// Pushes of late messages sent and not answered yet.
        var pushesInFlight = 0
        /// Sessions that moved away with calls still running here.
        var moved: [String: BridgeSession] = [:]
        /// Takeovers under way here, by token: their count and what waits for them to end.
        var restoring: [String: (count: Int, waiters: [@Sendable () -> Void])] = [:]

        /// Forgets what this node kept about owning session `id` (it ended or moved away).
        mutating func forgetOwned(_ id: String) {
            epochs.removeValue(forKey: id)
            untrimmedLate.removeValue(forKey: id)
            for runner in Array(watched.keys) {
                watched[runner]?.removeValue(forKey: id)
                if watched[runner]?.isEmpty == true { watched.removeValue(forKey: runner) }
            }
        }
    }
    let state = Mutex(State())
    let metrics = ClusterMetrics()

    /// - Parameters:
    ///   - graceMs: the bridge's grace period; records live 4/3 of it plus 10 s without a write.
    /// - Parameters:
    ///   - client: the connection of the journal's rounds; `messenger`: the one of node messages.
    public init(nodeID: String, client: RedisClient, messenger: RedisClient, graceMs: Int, logger: Logger) {
        self.nodeID = nodeID
        incarnation = String(UInt32.random(in: 1...UInt32.max), radix: 16)
        runnerID = "\(nodeID)#\(incarnation)"
        self.client = client
        self.messenger = messenger
        publisher = NodeMessagePublisher(messenger: messenger, batchReaders: [nodeID])
        self.logger = logger
        ttlMs = graceMs + graceMs / 3 + 10_000
    }

    /// Connects the journal to the bridge it serves (once, before the bridge takes sockets).
    public func attach(_ bridge: Bridge) {
        state.withLock { $0.bridge = bridge }
    }

    var bridge: Bridge? { state.withLock { $0.bridge } }

    // MARK: SessionJournal

    public func sessionNeedsWrite(_ session: BridgeSession) {
        let queue = state.withLock { s -> Bool in
            s.dirty.append(session)
            if s.roundQueued { return false }
            s.roundQueued = true
            // On the network thread the round waits for the end of its pass: the rest of the
            // pass' frames go in it, and the frame's other work (an answer published to
            // another node) goes out before the round is built.
            if s.bridge?.isOnServiceThread == true {
                s.roundAtPassEnd = true
                return false
            }
            return true
        }
        if queue { queueRound() }
    }

    public func serviceLoopPassEnded() {
        let queue = state.withLock { s -> Bool in
            defer { s.roundAtPassEnd = false }
            return s.roundAtPassEnd
        }
        if queue { queueRound() }
    }

    public func sessionEnded(_ session: BridgeSession) {
        guard
            let epoch = state.withLock({ s -> Int? in
                defer { s.forgetOwned(session.id) }
                return s.epochs[session.id]
            })
        else { return }
        client.send([ClusterScripts.endScript.evalSHA(arguments: [session.id, nodeID, String(epoch)])]) { [logger] result in
            if case .failure(let error) = result {
                logger.debug("session end not recorded: \(error)", metadata: ["bridge.session": "\(session.id)"])
            }
        }
    }

    public func sessionMovedAway(_ session: BridgeSession) {
        state.withLock { s in
            s.moved[session.id] = session
            s.forgetOwned(session.id)
        }
    }

    /// Whether anything of this node must still reach other nodes: calls running here for
    /// sessions that moved or may move, late messages not passed on, journal writes queued.
    /// Looks at every session: call it off the network thread (``ClusterNode`` keeps a flag).
    func hasWorkInFlight() -> Bool {
        let (moved, pushes, queued) = state.withLock { s -> ([BridgeSession], Int, Bool) in
            s.moved = s.moved.filter { $0.value.callsRunningHere > 0 }
            return (Array(s.moved.values), s.pushesInFlight + s.latePending.count, s.roundQueued || !s.dirty.isEmpty)
        }
        if !moved.isEmpty || pushes > 0 || queued { return true }
        return bridge?.sessions.contains { $0.callsRunningHere > 0 } ?? false
    }

    public func passLate(_ messages: [LateMessage], of session: BridgeSession) {
        state.withLock { _ = $0.epochs.removeValue(forKey: session.id) }
        // An invoke among them was never journaled (nor sent: rule 2), so no node knows it:
        // it goes to the owner as a call with its origin, to be numbered and recorded there
        // like any call from another node. As a late message it would reach the page with
        // this node's callbackId and no record of where its answers go.
        var late: [LateMessage] = []
        for message in messages {
            if message.message.kind == .invoke, let call = PassedInvoke(message.message, of: session) {
                passInvoke(call, session: session.id)
            } else {
                late.append(message)
            }
        }
        guard !late.isEmpty else { return }
        metrics.lateMessages.increment(by: Int64(late.count))
        pushLate(session: session.id, items: late.map { LateItem.encode($0, runner: runnerID) })
    }

    /// Sends an invoke the move left unjournaled to the session's owner, as a `call`.
    private func passInvoke(_ call: PassedInvoke, session: String) {
        messenger.send([RedisCommand("HGET", ClusterKeys.session(session), "node")]) { [self] result in
            guard let owner = (try? result.get())?.first?.stringValue, owner != nodeID else {
                logger.info("an invoke made as the session moved was dropped: no owner", metadata: ["bridge.session": "\(session)"])
                return
            }
            let message = NodeMessage.call(
                session: session, method: call.method, args: RawJSON(.array(call.args)), timeoutMs: PassedInvoke.timeoutMs, origin: call.origin)
            publisher.publish(message, to: owner)
        }
    }

    /// Pushes late items to the session's list and nudges its owner; retried every 500 ms
    /// while Redis is unreachable, so a result made after a move is never dropped here.
    func pushLate(session: String, items: [[UInt8]]) {
        let command = ClusterScripts.pushLateScript.evalSHA(arguments: [session, String(ttlMs)] + items)
        state.withLock { $0.pushesInFlight += 1 }
        client.send([command]) { [self] result in
            state.withLock { $0.pushesInFlight -= 1 }
            switch result {
            case .success(let replies):
                guard let owner = replies.first?.stringValue else {
                    logger.info("late messages dropped: the session has no record", metadata: ["bridge.session": "\(session)"])
                    return
                }
                publisher.publish(.late(session: session), to: owner)
            case .failure:
                state.withLock { $0.latePending.append((session, items)) }
            }
        }
    }

    /// Retries late messages that could not be passed on (called by the node's beat).
    func retryPendingLate() {
        let pending = state.withLock { s -> [(session: String, items: [[UInt8]])] in
            defer { s.latePending.removeAll() }
            return s.latePending
        }
        for p in pending { pushLate(session: p.session, items: p.items) }
    }

    public func takeOver(
        token: String, ack: Int64, peerAddress: String,
        completion finished: @escaping @Sendable (Result<BridgeSession, SessionRefusal>) -> Void
    ) {
        state.withLock { $0.restoring[token, default: (0, [])].count += 1 }
        let completion: @Sendable (Result<BridgeSession, SessionRefusal>) -> Void = { [self] result in
            finished(result)
            let waiters = state.withLock { s -> [@Sendable () -> Void] in
                guard var entry = s.restoring[token] else { return [] }
                entry.count -= 1
                if entry.count > 0 {
                    s.restoring[token] = entry
                    return []
                }
                s.restoring.removeValue(forKey: token)
                return entry.waiters
            }
            for waiter in waiters { waiter() }
        }
        let unknown = SessionRefusal(code: 4004, reason: "unknown session")
        let command = ClusterScripts.claimScript.evalSHA(arguments: [token, nodeID, String(ack), String(ttlMs)])
        client.send([command]) { [self] result in
            let reply: ClaimReply
            do {
                guard case .success(let replies) = result, let first = replies.first else {
                    logger.info("resume refused: the cluster is unavailable")
                    return completion(.failure(unknown))
                }
                reply = try ClaimReply(first)
            } catch let error as ClaimReply.Malformed {
                logger.error("resume refused: \(error.reason)")
                return completion(.failure(unknown))
            } catch {
                return completion(.failure(unknown))
            }
            guard case .claimed(let claimed) = reply else {
                if reply == .stale { logger.warning("resume refused: the page acknowledged messages the journal lacks") }
                return completion(.failure(unknown))
            }
            restore(claimed, token: token, completion: completion)
        }
    }

    /// Runs `body` once every takeover under way on this node now has ended (at once when
    /// none is). Between a claim's reply and the session's restore the journal names this
    /// node as the owner while the bridge does not know the session yet: a call for it
    /// (sync, admin, from another node) that arrives then waits here instead of failing.
    func whenRestoresEnd(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            guard !s.restoring.isEmpty else { return true }
            let countdown = Countdown(s.restoring.count, body)
            for token in s.restoring.keys { s.restoring[token]?.waiters.append { countdown.done() } }
            return false
        }
        if now { body() }
    }

    /// Runs its body when ``done()`` has been called `count` times.
    private final class Countdown: Sendable {
        private let left: Atomic<Int>
        private let body: @Sendable () -> Void
        init(_ count: Int, _ body: @escaping @Sendable () -> Void) {
            left = Atomic(count)
            self.body = body
        }
        func done() {
            if left.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { body() }
        }
    }

    /// Makes the claimed session here (on a worker: it may end a session, which runs hooks).
    private func restore(
        _ claimed: ClaimReply.Claimed, token: String,
        completion: @escaping @Sendable (Result<BridgeSession, SessionRefusal>) -> Void
    ) {
        guard let bridge else { return completion(.failure(SessionRefusal(code: 4004, reason: "unknown session"))) }
        let parts = claimed.snapshot
        var made = parts.snapshot(token: token)
        made.nativeCallHandler = { [self] origin, _ in forwarder(to: origin) }
        let snapshot = made
        state.withLock { s in
            s.epochs[parts.id] = claimed.epoch
            s.untrimmedLate[parts.id] = parts.late.count
            for r in parts.run where r.node != runnerID && !parts.lostNodes.contains(r.node) {
                s.watched[r.node, default: [:]][parts.id, default: []].append((r.id, r.entry))
            }
        }
        if claimed.previousNode != nodeID, !parts.lostNodes.contains(claimed.previousNode) {
            publisher.publish(.moved(session: parts.id), to: claimed.previousNode)
        }
        bridge.executor.execute { [self] in
            guard let session = bridge.restoreSession(snapshot) else {
                logger.error("resume refused: the session is here already, or its journal's messages are not contiguous")
                // Another socket of the page may have restored it here a moment ago: keep its epoch.
                if bridge.session(id: parts.id) == nil { _ = state.withLock { $0.epochs.removeValue(forKey: parts.id) } }
                return completion(.failure(SessionRefusal(code: 4004, reason: "unknown session")))
            }
            metrics.takeovers.increment()
            completion(.success(session))
        }
    }

    /// A handler that passes a page's answers to a native call made on node `origin`
    /// (`NODE|REF`).
    func forwarder(to origin: String) -> NativeCallHandler {
        guard let origin = CallOrigin(parsing: origin) else { return { _ in } }
        return forwarder(to: origin)
    }

    /// ``forwarder(to:)-(String)`` for an origin read already.
    func forwarder(to origin: CallOrigin) -> NativeCallHandler {
        let (node, ref) = (origin.node, origin.ref)
        if node == nodeID {
            return { [weak self] event in self?.bridge?.deliverForwardedAnswer(ref: ref, event) }
        }
        return { [publisher] event in publisher.publish(.answer(ref: ref, event: event), to: node) }
    }

    /// Session `id` has late messages (its owner's nudge): read them in the next round.
    func lateArrived(for id: String) {
        let queue = state.withLock { s -> Bool in
            guard s.epochs[id] != nil else { return false }
            s.lateDue.insert(id)
            if s.roundQueued { return false }
            s.roundQueued = true
            return true
        }
        if queue { queueRound() }
    }

    /// Runners (`NAME#INCARNATION`) of calls of sessions this node owns (the beat checks
    /// they live).
    func watchedNodes() -> [String] { state.withLock { Array($0.watched.keys) } }

    /// Stops watching runner `node` (it is lost). - Returns: its open calls, by session.
    func takeWatched(node: String) -> [String: [(id: Int64, entry: RunEntry)]] {
        state.withLock { $0.watched.removeValue(forKey: node) ?? [:] }
    }

    /// The epoch held of session `id` (tests, listings).
    func epoch(of id: String) -> Int? { state.withLock { $0.epochs[id] } }
}

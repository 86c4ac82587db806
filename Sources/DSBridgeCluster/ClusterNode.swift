// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis
import DSBridgeServer
import Dispatch
import Foundation
import Logging
import Synchronization

/// One dsbridged node of a cluster on Redis (docs/CLUSTER.md): its record and beat, its
/// channel, calls into sessions on any node, group calls, cluster-wide listings, and the
/// journal its sessions write ahead to.
///
/// Make the ``RedisJournal`` first, give it to the ``Bridge``, then make the node:
///
/// ```swift
/// let cluster = try ClusterNode.Parts(nodeID: "a:8080", redisURL: "redis://127.0.0.1:6379", graceMs: 60_000, logger: logger)
/// let bridge = Bridge(configuration: config, journal: cluster.journal)
/// let node = ClusterNode(parts: cluster, bridge: bridge, address: "10.0.0.5:8080", logger: logger)
/// node.start()
/// ```
///
/// Threads: every method may be called from any thread; Redis replies and node messages are
/// handled on the Redis threads without blocking, application code goes to the bridge's
/// executor.
public final class ClusterNode: ClusterRouter {
    /// What a node is made of before its bridge exists: the Redis connections and the journal.
    public struct Parts: Sendable {
        public let nodeID: String
        public let endpoint: RedisEndpoint
        /// The journal's connection (its rounds, takeovers, late lists).
        public let client: RedisClient
        /// The connection of everything else (node messages, look-ups, the beat), so that
        /// none of it waits behind a journal round.
        public let messenger: RedisClient
        public let journal: RedisJournal

        /// - Parameter redisURL: `redis://HOST:PORT[/DB]` or `unix:///path` (``RedisEndpoint``).
        public init(nodeID: String, redisURL: String, graceMs: Int, logger: Logger) throws(ClusterSetupError) {
            endpoint = try ClusterNode.validated(nodeID: nodeID, redisURL: redisURL)
            self.nodeID = nodeID
            client = RedisClient(endpoint: endpoint, name: "dsb-redis", logger: logger)
            messenger = RedisClient(endpoint: endpoint, name: "dsb-redis-msg", logger: logger)
            journal = RedisJournal(nodeID: nodeID, client: client, messenger: messenger, graceMs: graceMs, logger: logger)
        }
    }

    /// Checks a node's name and Redis URL as ``init(nodeID:redisURL:graceMs:logger:)``
    /// does, without making anything (`--check-config`). - Returns: the endpoint.
    public static func validated(nodeID: String, redisURL: String) throws(ClusterSetupError) -> RedisEndpoint {
        if nodeID.isEmpty || nodeID.contains(where: { "|# ".contains($0) || $0.isNewline }) {
            throw .invalidNodeID(nodeID)
        }
        do {
            return try RedisEndpoint(parsing: redisURL)
        } catch {
            throw .invalidRedisURL(error)
        }
    }

    /// Passes the subscriber's messages to the node once it exists (the subscriber is made
    /// in the node's initializer, before `self` may be captured). Holds the node weakly,
    /// not a closure: a closure read out of a generic container on every message was
    /// re-wrapped each time, and calling it grew with the number of messages.
    final class MessageRelay: Sendable {
        private struct Target: Sendable { weak var node: ClusterNode? }
        private let target = Mutex(Target())
        func set(_ node: ClusterNode) { target.withLock { $0.node = node } }
        func deliver(_ payload: [UInt8]) { target.withLock { $0.node }?.receive(payload) }
    }

    public let nodeID: String
    public let journal: RedisJournal
    let client: RedisClient
    let messenger: RedisClient
    let subscriber: RedisSubscriber
    private let relay = MessageRelay()
    let bridge: Bridge
    let logger: Logger
    /// Where pages reach this node (its record's `addr`).
    let address: String
    let startedMs = Int64(Date().timeIntervalSince1970 * 1000)
    /// Whether this node is draining (its record says so; sessions whose page left are 503).
    let isDraining: @Sendable () -> Bool
    /// The beat: 500 ms; a node whose record is older than 6 beats (3 s) is dead. The
    /// margin covers a beat delayed on a busy machine: a live node taken for dead would see
    /// its running calls failed by another node.
    static let beatMs = 500
    static let recordTTLMs = 3_000

    struct Pending: Sendable {
        var nextRequest: Int64 = 1
        /// Remote calls that may be refused, by the ref of their handler.
        var refusals: [Int64: @Sendable (ClusterCallError) -> Void] = [:]
        /// The deadlines of remote calls (``DelayedWork`` ids), by the ref of their handler:
        /// called off at the call's final answer or refusal.
        var deadlines: [Int64: UInt64] = [:]
        var lists: [Int64: ListWait] = [:]
        var groups: [Int64: GroupWait] = [:]
        var syncs: [Int64: @Sendable (ForwardedSyncCall) -> Void] = [:]
        /// The deadlines of forwarded sync calls (``DelayedWork`` ids), by request.
        var syncDeadlines: [Int64: UInt64] = [:]
        /// The node (and its incarnation) each forwarded sync call went to, and when (uptime
        /// ns), by request: one that dies fails them.
        var syncOwners: [Int64: (node: String, incarnation: String, since: UInt64)] = [:]
        /// The node each remote native call went to (and its incarnation, when known), until
        /// its invoke is known to be journaled, by the ref of its handler: one that dies
        /// before it journaled the invoke fails the call (``failRemoteCallsOfLostNodes(readFrom:)``).
        var remoteOwners: [Int64: RemoteCallOwner] = [:]
        var traces: [Int64: @Sendable (JSONValue?) -> Void] = [:]
        var metrics: [Int64: @Sendable (String?) -> Void] = [:]
    }

    /// A cluster listing waiting for the other nodes' sessions.
    typealias ListWait = NodeWait<JSONValue>
    /// A group call waiting for the node that runs it.
    typealias GroupWait = NodeWait<GroupCallResult>

    let pending = Mutex(Pending())
    /// Owners of sessions on other nodes, as last read from Redis (a hint: a refusal is
    /// asked about again).
    let owners = OwnerCache()
    /// Outcomes of the calls other nodes asked this one to make (``pushInvokes(into:via:method:args:count:)``).
    public let pushed = CallOutcomeCounters()
    /// The other nodes seen alive at the last check (every second).
    let liveOthers = Mutex<[String]>([])
    /// Their incarnations at the last read of their records (a node started again under
    /// its name has another).
    let liveIncarnations = Mutex<[String: String]>([:])
    /// This node's `/metrics` text (``serveMetrics(_:)``).
    let metricsSource = Mutex<MetricsSource?>(nil)
    let stopped = Atomic<Bool>(false)
    /// A renewal pass is going (``renewSessions()``); a beat does not start another.
    let renewing = Atomic<Bool>(false)
    /// A reaper pass is going (``reapDeadNodes()``).
    let reaping = Atomic<Bool>(false)
    /// ``RedisJournal/hasWorkInFlight()``, kept up to date every 100 ms while draining.
    private let busy = Atomic<Bool>(false)
    private let watchingDrain = Atomic<Bool>(false)
    let queue = DispatchQueue(label: "dsbridge-cluster")

    /// Runs `work` on ``queue`` after `milliseconds`: the deadline of one request (a call,
    /// a forwarded sync call, a listing). ``DelayedWork`` wakes its thread only for a new
    /// earliest deadline, where `asyncAfter` pokes Dispatch's timer thread on every call.
    /// - Returns: an id for ``DelayedWork/cancel(_:)`` (a deadline of a request answered
    ///   in time is called off, so it holds no memory until it would have come due).
    @discardableResult
    func afterDelay(milliseconds: Int, _ work: @escaping @Sendable () -> Void) -> UInt64 {
        DelayedWork.shared.schedule(afterMilliseconds: milliseconds, on: queue, work)
    }
    private let beats = Atomic<Int>(0)
    /// Whether a beat wrote this process' record (from then on, another incarnation in it
    /// is another process under the same name).
    private let recordWritten = Atomic<Bool>(false)
    /// The beat that last warned of another process under this name (0: none yet).
    private let duplicateWarnedAtBeat = Atomic<Int>(0)

    /// - Parameters:
    ///   - address: where pages reach this node (`HOST:PORT`), for the node's record.
    ///   - isDraining: whether the node drains (the server's flag).
    public init(
        parts: Parts, bridge: Bridge, address: String, logger: Logger, isDraining: @escaping @Sendable () -> Bool = { false }
    ) {
        nodeID = parts.nodeID
        journal = parts.journal
        client = parts.client
        messenger = parts.messenger
        let relay = self.relay
        subscriber = RedisSubscriber(
            endpoint: parts.endpoint, channels: [Array(ClusterKeys.channel(parts.nodeID).utf8)], name: "dsb-redis-sub",
            logger: logger
        ) { _, payload in relay.deliver(payload) }
        self.bridge = bridge
        self.address = address
        self.logger = logger
        self.isDraining = isDraining
        journal.attach(bridge)
    }

    /// Connects to Redis (and keeps reconnecting) and starts the beat. Returns at once;
    /// until Redis answers, cross-node features fail with ``ClusterCallError/clusterUnavailable(_:)``.
    public func start() {
        client.onConnected = { [self] connection in
            _ = try connection.send(ClusterScripts.all.map(\.loadCommand) + beatCommands())
            logger.notice("cluster: connected to Redis \(client.endpoint) as node \(nodeID)")
            // After this handler the client takes batches: every session writes a snapshot
            // (Redis may have restarted empty, or missed writes while it was away).
            queue.asyncAfter(deadline: .now() + .milliseconds(20)) { [self] in resync() }
        }
        client.onDisconnected = { [self] error in
            logger.warning("cluster: lost Redis (\(error)); serving this node's sessions only until it is back")
        }
        messenger.onConnected = { [self] connection in
            _ = try connection.send(ClusterScripts.all.map(\.loadCommand) + beatCommands())
        }
        relay.set(self)
        client.start()
        messenger.start()
        subscriber.start()
        scheduleBeat()
    }

    /// Waits (after ``start()``) until the node's three Redis connections are up, or
    /// `timeoutMs` has passed; answers whether they are. The daemon serves only after
    /// this: a request that needs Redis in the first milliseconds after the start would
    /// otherwise fail as if Redis were down (503 `cluster unavailable`). With Redis
    /// unreachable the node serves its own sessions all the same once the wait is over.
    public func waitUntilConnected(timeoutMs: Int) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(timeoutMs)
        while !isRedisUp {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// The beat runs every ``beatMs`` on ``queue`` until ``stop()``.
    private func scheduleBeat() {
        queue.asyncAfter(deadline: .now() + .milliseconds(Self.beatMs)) { [self] in
            guard !stopped.load(ordering: .acquiring) else { return }
            beat()
            scheduleBeat()
        }
    }

    /// Stops the beat and the Redis connections (the node's record expires by itself).
    public func stop() {
        stopped.store(true, ordering: .releasing)
        subscriber.stop()
        messenger.stop()
        client.stop()
    }

    /// Asked by a drain (on the network thread): the first question starts the watch and
    /// answers busy until the watch has looked.
    public var isBusy: Bool {
        watchWorkWhileDraining()
        return busy.load(ordering: .acquiring)
    }

    public var healthNote: String? {
        isRedisUp ? nil : "redis unavailable"
    }

    /// Whether Redis can be reached now: both command connections, and the subscriber
    /// subscribed again (until it is, other nodes' messages to this node are lost and their
    /// calls into its sessions answer "node down", though commands already work).
    public var isRedisUp: Bool { client.isConnected && messenger.isConnected && subscriber.isConnected }

    private func beatCommands() -> [RedisCommand] {
        let key = ClusterKeys.node(nodeID)
        return [
            RedisCommand(
                "HSET", key, "addr", address, "started", String(startedMs), "inc", journal.incarnation, "draining",
                isDraining() ? "1" : "0", "reads", NodeMessageReaders.field(incarnation: journal.incarnation)),
            RedisCommand("PEXPIRE", key, String(Self.recordTTLMs)),
            RedisCommand("SADD", ClusterKeys.nodes, nodeID),
        ]
    }

    /// Every beat: the node's record, late messages to retry, lost nodes among those still
    /// running calls of this node's sessions, and (every `graceMs`/3) the sessions' expiry.
    private func beat() {
        // The record's incarnation before this beat writes it: once this process wrote its
        // own, another one there means a second process runs under this name.
        messenger.send([RedisCommand("HGET", ClusterKeys.node(nodeID), "inc")] + beatCommands()) { [self] result in
            guard case .success(let replies) = result else { return }
            noteRecordIncarnation(replies.first?.stringValue)
        }
        journal.metrics.redisUp.record(isRedisUp ? 1 : 0)
        journal.retryPendingLate()
        checkWatchedNodes()
        if isDraining() { watchWorkWhileDraining() }
        let n = beats.add(1, ordering: .relaxed).newValue
        let every = max(1, bridge.configuration.graceMs / 3 / Self.beatMs)
        if n % every == 0 { renewSessions() }
        if n % 10 == 0 { reapDeadNodes() }
        if n % 2 == 0 { refreshLiveNodes() }
    }

    /// Warns (every 30 s at most) when the record held another process' incarnation: two
    /// processes share `--node-id`, and each takes the other's sessions for those of a node
    /// started again (calls into them answer 503).
    private func noteRecordIncarnation(_ seen: String?) {
        defer { recordWritten.store(true, ordering: .releasing) }
        guard recordWritten.load(ordering: .acquiring), let seen, seen != journal.incarnation else { return }
        let now = beats.load(ordering: .relaxed)
        let last = duplicateWarnedAtBeat.load(ordering: .relaxed)
        guard last == 0 || now - last >= 30_000 / Self.beatMs else { return }
        duplicateWarnedAtBeat.store(max(1, now), ordering: .relaxed)
        logger.error(
            "cluster: another process runs as node \(nodeID) (its record held incarnation \(seen), this process is \(journal.incarnation)): give each node its own --node-id"
        )
    }

    /// Every second: which other nodes are alive (for ``anyOtherNode()``), and which of
    /// them read batched node messages.
    private func refreshLiveNodes() {
        let readFrom = DispatchTime.now().uptimeNanoseconds
        readLiveOthers { [self] live in
            guard let live else { return }
            liveOthers.withLock { $0 = live }
            failSyncCallsOfLostNodes(readFrom: readFrom)
            failRemoteCallsOfLostNodes(readFrom: readFrom)
        }
    }

    /// The other nodes alive now, by name, as Redis says (`nil`: Redis did not answer).
    /// Their records also say which of them read batched node messages: the publisher
    /// learns it with every read (``NodeMessageReaders``).
    func readLiveOthers(_ done: @escaping @Sendable ([String]?) -> Void) {
        messenger.send([RedisCommand("SMEMBERS", ClusterKeys.nodes)]) { [self] result in
            guard case .success(let r) = result, let names = r.first?.arrayValue?.compactMap(\.stringValue) else { return done(nil) }
            let others = names.filter { $0 != nodeID }.sorted()
            guard !others.isEmpty else { return done([]) }
            messenger.send(others.map { RedisCommand("HMGET", ClusterKeys.node($0), "inc", "reads") }) { [self] result in
                guard case .success(let records) = result else { return done(nil) }
                var live: [String] = []
                var incarnations: [String: String] = [:]
                var batchReaders: Set<String> = [nodeID]
                for (name, record) in zip(others, records) {
                    let fields = record.arrayValue ?? []
                    guard let inc = fields.first?.stringValue else { continue }  // no record: dead
                    live.append(name)
                    incarnations[name] = inc
                    if NodeMessageReaders.readsBatches(fields.dropFirst().first?.stringValue, incarnation: inc) {
                        batchReaders.insert(name)
                    }
                }
                journal.publisher.setBatchReaders(batchReaders)
                liveIncarnations.withLock { $0 = incarnations }
                done(live)
            }
        }
    }

    /// Another live node (the first in name order), if any: where `cluster.pushInvokes`
    /// sends its work.
    public func anyOtherNode() -> String? {
        liveOthers.withLock { $0.first }
    }

    /// Asks node `via` to make `count` native-initiated calls of `method` into session `id`
    /// (load tests of calls across nodes; their outcomes are counted in `via`'s ``pushed``).
    public func pushInvokes(into id: String, via node: String, method: String, args: [JSONValue], count: Int) {
        publish(.push(session: id, method: method, args: args, count: count), to: node)
    }

    /// While draining: whether work must still reach other nodes, every 100 ms, for the
    /// drain to wait on (``isBusy``). Starts once.
    private func watchWorkWhileDraining() {
        guard !watchingDrain.exchange(true, ordering: .acquiringAndReleasing) else { return }
        busy.store(true, ordering: .releasing)  // until the first check says otherwise
        queue.async { [self] in checkWork() }
    }

    private func checkWork() {
        busy.store(journal.hasWorkInFlight(), ordering: .releasing)
        guard !stopped.load(ordering: .acquiring) else { return }
        queue.asyncAfter(deadline: .now() + .milliseconds(100)) { [self] in checkWork() }
    }

    /// Fails the calls of nodes that died (or were started again: another incarnation)
    /// while running calls of sessions this node owns.
    private func checkWatchedNodes() {
        let runners = journal.watchedNodes()
        guard !runners.isEmpty else { return }
        let parsed = runners.map(RunnerID.split)
        messenger.send(parsed.map { RedisCommand("HGET", ClusterKeys.node($0.name), "inc") }) { [self] result in
            guard case .success(let replies) = result else { return }
            for ((node, runner), reply) in zip(zip(runners, parsed), replies) where reply.stringValue != runner.incarnation {
                let lost = journal.takeWatched(node: node)
                logger.warning("cluster: node \(node) is lost; failing its \(lost.count) sessions' running calls")
                bridge.executor.execute { [self] in
                    for (id, calls) in lost { bridge.session(id: id)?.failCallsOfLostNode(node, calls: calls) }
                }
            }
        }
    }

    /// After a (re)connection: every session writes a snapshot.
    private func resync() {
        guard client.isConnected else {
            queue.asyncAfter(deadline: .now() + .milliseconds(50)) { [self] in resync() }
            return
        }
        let sessions = bridge.sessions
        bridge.executor.execute {
            for s in sessions { s.journalReconnected() }
        }
    }

    /// A new request number (lists, groups).
    func nextRequest() -> Int64 {
        pending.withLock { p in
            defer { p.nextRequest += 1 }
            return p.nextRequest
        }
    }

    /// Publishes `message` to `node`'s channel; `delivered` gets whether anybody listens.
    func publish(_ message: NodeMessage, to node: String, delivered: (@Sendable (Bool) -> Void)? = nil) {
        journal.publisher.publish(message, to: node, delivered: delivered)
    }
}

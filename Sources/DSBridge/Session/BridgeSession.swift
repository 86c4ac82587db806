// SPDX-License-Identifier: MIT
import Foundation
import Logging
import Synchronization

/// One page session: its calls, its ordered outbound messages (with replay), its
/// native-initiated calls. It outlives its socket for the grace period. Every method is
/// safe from any thread; interface methods never run under its lock.
///
/// This class is a shell: what the session holds and how that changes is ``SessionState``,
/// a value it keeps under its lock; each method takes the lock, makes one transition, lets
/// go, then carries out the actions the transition returned. The files of this type:
/// `BridgeSession+Outbound` (queueing messages), `+Calls` (page→native calls),
/// `+SyncHTTP` (sync HTTP calls and their ordering), `+InternalAPI` (`_dsb.*`),
/// `+NativeCalls` (native→page calls), `+JavaScript` and `+PageFunctions` (typed helpers).
///
/// Lock order (the one place it is written down): a session's `state` lock comes first.
/// Under it an ``AsyncCall``'s lock or a ``BridgeConnection``'s lock (adopting a socket,
/// pausing reads, requesting a close) may be taken, never the reverse, and never the
/// bridge's session store. No user code runs under it: interface methods, their
/// cancellation handlers, interface deinits (instances are released after unlocking),
/// native-call handlers, lifecycle hooks and ``whenReady(_:)`` bodies. On the network
/// thread none of those run at all (``CallSite``): they go to the bridge's executor.
public final class BridgeSession: Sendable {
    /// Public id, for logs and the admin API.
    public let id: String
    /// The secret that attaches a socket or a sync call to this session. Never logged.
    public let token: String
    /// The TCP peer address of the request that created the session.
    public let peerAddress: String
    /// The `Origin` of the request that created the session.
    public let origin: String?
    /// When the session was created.
    public let createdAt: Date

    /// The session whose call is running: set while an interface method runs (and in the
    /// tasks it starts that inherit task-locals). Keep it to call the page later.
    @TaskLocal public static var current: BridgeSession?

    /// The bridge this session belongs to.
    public let bridge: Bridge
    // Declared before `state` (a large value), so that the count and the trace's reference
    // share the memory line of `state`'s lock, which every call touches anyway: behind
    // `state` they sat on a line of their own, one more cache miss per call when thousands
    // of sessions each call now and then.
    /// Page → native calls ended so far (the admin page shows calls per second).
    let callCount = Atomic<Int>(0)
    /// Recent calls, recorded while the admin page watches this session.
    public let trace = CallTrace()
    let state: Mutex<SessionState<BridgeConnection>>

    /// Page → native calls this session made so far (answered or refused).
    public var callsMade: Int { callCount.load(ordering: .relaxed) }
    var logger: Logger { bridge.logger }

    init(bridge: Bridge, id: String, token: String, peerAddress: String, origin: String?) {
        self.bridge = bridge
        self.id = id
        self.token = token
        self.peerAddress = peerAddress
        self.origin = origin
        let createdAt = Date()
        self.createdAt = createdAt
        let c = bridge.configuration
        let journal = bridge.journal.map { _ in
            SessionJournalState(
                identity: SessionIdentity(
                    id: id, token: token, peerAddress: peerAddress, origin: origin,
                    createdAtMs: Int64(createdAt.timeIntervalSince1970 * 1000)))
        }
        state = Mutex(
            SessionState(
                log: OutboundLog(maxMessages: c.replayMaxMessages, maxBytes: c.replayMaxBytes),
                maxAfterWaiters: Self.maxAfterWaiters, journal: journal))
    }

    /// A session continued from a journal (``Bridge/restoreSession(_:)``); `nil` when the
    /// snapshot's messages are not exactly the unacknowledged ones.
    init?(bridge: Bridge, restoring snapshot: SessionSnapshot, handlers: [Int64: NativeCallHandler]) {
        let c = bridge.configuration
        guard
            let log = OutboundLog(
                restoring: snapshot.messages, lastSeq: snapshot.lastSeq, acked: snapshot.acked,
                maxMessages: c.replayMaxMessages, maxBytes: c.replayMaxBytes)
        else { return nil }
        self.bridge = bridge
        id = snapshot.identity.id
        token = snapshot.identity.token
        peerAddress = snapshot.identity.peerAddress
        origin = snapshot.identity.origin
        createdAt = Date(timeIntervalSince1970: Double(snapshot.identity.createdAtMs) / 1000)
        state = Mutex(SessionState(restoring: snapshot, log: log, maxAfterWaiters: Self.maxAfterWaiters, handlers: handlers))
        // What the restored log and held invokes hold, counted at once.
        transition { _ in }
    }

    /// Makes one transition of the session's state under its lock (`body`), then applies
    /// what it changed in the memory budget (``SessionState/takeMemoryDelta()``; the
    /// budget's count is a leaf, taken under the lock as before the machines returned it).
    /// Every access to `state` goes through here.
    func transition<Result: Sendable>(_ body: (inout SessionState<BridgeConnection>) -> Result) -> Result {
        state.withLock { s in
            let result = body(&s)
            bridge.memory.add(s.takeMemoryDelta())
            return result
        }
    }

    // MARK: status

    /// Whether a socket is attached.
    public var isConnected: Bool { transition { $0.connection != nil } }
    /// Whether the page signalled `_dsb.dsinit`.
    public var isReady: Bool { transition { $0.ready } }
    /// Whether the session is over.
    public var isEnded: Bool { transition { $0.ended } }
    /// Bytes of unacknowledged messages kept for replay.
    public var replayBytes: Int { transition { $0.log.keptBytes } }
    /// Bytes this session holds for the memory budget (PROTOCOL.md 2.6): unacknowledged
    /// and queued messages, held invokes, sync-call bodies, and frames its socket read but
    /// did not process yet. 0 once the session has ended.
    public var memoryHeld: Int {
        let (own, connection) = transition { ($0.counted, $0.ended ? nil : $0.connection) }
        return own + (connection?.unprocessedBytes ?? 0)
    }
    /// Messages held (before `dsinit`) or not yet acknowledged.
    public var queuedCount: Int { transition { $0.queuedCount } }
    /// No sync call of the socket is running and everything queued went to `connection`
    /// (what a drain waits for before closing the socket).
    func isSettled(for connection: BridgeConnection) -> Bool {
        transition { $0.isSettled(for: connection) }
    }

    /// The highest call id received.
    public var lastCallID: Int64 { transition { $0.lastCall } }

    // MARK: sockets (attaching and detaching them: ``SessionReconnect``)

    /// The next frame for `connection`, if it is the attached one.
    func takeFrame(for connection: BridgeConnection) -> [UInt8]? {
        transition { $0.takeFrame(for: connection) }
    }

    /// Whether messages wait to be written to `connection` (the attached one).
    func hasUnsentFrame(for connection: BridgeConnection) -> Bool {
        transition { $0.hasUnsentFrame(for: connection) }
    }

    /// The page processed every message up to `seq`.
    func acknowledge(_ seq: Int64) {
        if transition({ $0.acknowledge(seq) }) { bridge.journal?.sessionNeedsWrite(self) }
    }

    // MARK: ending

    /// Ends the session: native calls fail, the socket closes with `closeCode` (if any).
    public func end(reason: String, closeCode: Int? = 1000) {
        finish(reason: reason, closeCode: closeCode, dropQueued: false, site: .worker)
    }

    /// Ends the session for the memory budget (PROTOCOL.md 2.6): an attached socket is
    /// closed 4008 `memory budget` at once (messages not yet written are dropped, not
    /// written first), a session in its grace period ends silently.
    /// - Returns: whether this call ended it (`false`: it had ended already).
    func endForMemoryBudget() -> Bool {
        finish(reason: "memory budget", closeCode: 4008, dropQueued: true, site: .worker)
    }

    /// Ends the session and carries out what the ending leaves to do. On the network
    /// thread (`site`), the user code among it (cancellation handlers, the `closed` hook,
    /// native-call handlers, interface deinits) runs on a worker.
    @discardableResult
    func finish(reason: String, closeCode: Int?, dropQueued: Bool, pageClosed: Bool = false, site: CallSite) -> Bool {
        guard let ending = transition({ $0.end(dropQueued: dropQueued, pageClosed: pageClosed) }) else { return false }
        bridge.forget(self)
        if ending.forgetJournal { bridge.journal?.sessionEnded(self) }
        bridge.metrics.sessionClosed(closeCode: ending.connection == nil ? nil : closeCode)
        logger.info("session ended: \(reason)", metadata: ["bridge.session": "\(id)"])
        if let connection = ending.connection, let closeCode {
            connection.requestClose(code: closeCode, reason: CloseReason.clipped(reason))
        }
        site.runApplicationCode(on: bridge.executor) { [self] in
            // Outside the lock (see the lock order above): a cancellation handler may
            // complete its call, and an interface's deinit may call back into the session.
            for task in ending.tasks { task.cancel() }
            bridge.lifecycle.closed?(self, reason)
            for handler in ending.handlers { handler(.failed(.sessionEnded)) }
            for resume in ending.afterWaiters { resume(false) }
            // `ending.instances` are released when this closure is, also unlocked.
        }
        return true
    }
}

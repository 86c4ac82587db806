// SPDX-License-Identifier: MIT

/// What one page session holds, and every rule about how that changes, as a value.
///
/// Each mutating method makes one transition and returns what the caller must do after it
/// lets go of the session's lock: wake or pause a socket, run handlers, cancel tasks,
/// release interfaces. Nothing here blocks, reads a clock, schedules work or runs user
/// code, so tests drive it directly, one transition at a time. ``BridgeSession`` is the
/// shell: it holds this under its lock and carries out the returned actions.
///
/// It owns one machine per concern, each with its own table of tests, and makes its
/// transitions out of theirs (the way async-http-client's connection machine owns its
/// request machine): ``SocketAttachment`` (the attached socket and its grace periods),
/// ``PageCallBook`` (the page's socket calls), ``SyncCallOrdering`` (`X-DSBridge-After`
/// waiters), ``PageReadiness`` (`_dsb.dsinit` and the startup queue), ``NativeCallBook``
/// (native-initiated calls and the page's answers), ``OutboundLog`` (numbering and
/// replay) and, in cluster mode only, ``SessionJournalGate``, so single-node transitions
/// never ask a journal anything. Its transitions are split by concern over this file,
/// `SessionState+Outbound`, `+NativeCalls` and `+Cluster`. What the memory budget must
/// count changes with most transitions; the shell takes the difference after each one
/// (``takeMemoryDelta()``) and applies it: nothing here touches ``MemoryBudget``.
///
/// `Connection` is the socket type (``BridgeConnection`` in the bridge; any class in tests).
/// Only its identity is used here.
struct SessionState<Connection: AnyObject & Sendable>: Sendable {
    // The sub-machines and the log are set by SessionState's own transitions only (here
    // and in SessionState+Outbound, +NativeCalls, +Cluster); the shell reads them.
    /// Numbered messages, kept until acknowledged: the replay.
    var log: OutboundLog
    private(set) var socket = SocketAttachment<Connection>()
    private(set) var ended = false
    // A call reads most fields from `log` to `journal`: declared together, so that they
    // share memory lines (a struct's fields are laid out in declaration order); with
    // thousands of sessions each calling now and then, every other line is a cache miss.
    /// The page's socket calls: ids, pending and async calls, the call rate.
    private(set) var calls = PageCallBook()
    /// Sync HTTP calls waiting for socket calls.
    private(set) var syncOrder: SyncCallOrdering
    /// What this session has counted in the daemon-wide ``MemoryBudget`` (the shell adds
    /// each ``takeMemoryDelta()``).
    private(set) var counted = 0
    /// Cluster mode only: the session's side of the journal (docs/CLUSTER.md).
    var journal: SessionJournalGate?
    /// `_dsb.dsinit`, and the invokes and bodies waiting for it.
    var readiness = PageReadiness()
    /// The native calls waiting for the page's answers, and the answers waiting for a worker.
    var nativeCalls = NativeCallBook()
    /// Per-session interface instances, by factory id.
    private var instances: [Int: any ExposedInterface] = [:]
    /// Bytes of sync-call requests held while their call waits or runs.
    private(set) var syncBodyBytes = 0
    /// Tags for group calls (`user:42`, `room:7`).
    private(set) var tags: [String] = []

    init(log: OutboundLog, maxAfterWaiters: Int = 1_024, journal: SessionJournalState? = nil) {
        self.log = log
        syncOrder = SyncCallOrdering(maxWaiters: maxAfterWaiters)
        self.journal = journal.map(SessionJournalGate.init)
        if journal != nil { self.log.setGated(true) }
    }

    /// A session continued from a journal's `snapshot` with `log` (restored from it).
    /// Native calls get `handlers` (by `callbackId`).
    init(
        restoring snapshot: SessionSnapshot, log: OutboundLog, maxAfterWaiters: Int = 1_024, handlers: [Int64: NativeCallHandler]
    ) {
        self.init(log: log, maxAfterWaiters: maxAfterWaiters)
        journal = SessionJournalGate(SessionJournalState(restoring: snapshot))
        self.log.setGated(true)
        calls = PageCallBook(lastCall: snapshot.lastCall)
        tags = snapshot.tags
        nativeCalls = NativeCallBook(restoring: handlers, nextCallbackId: snapshot.nextCallbackId)
        var held: [PageReadiness.HeldInvoke] = []
        for h in snapshot.held {
            let invoke = EncodedInvoke(tail: h.tail)
            let bytes = invoke.size(seq: log.lastSeq + Int64(held.count) + 1, callbackId: h.callbackId)
            held.append(PageReadiness.HeldInvoke(callbackId: h.callbackId, invoke: invoke, bytes: bytes))
        }
        // Ready with invokes still held (a dsinit accepted on a lost node): not ready until
        // the restore releases them (``SessionReconnect/restore(_:)``).
        readiness = PageReadiness(restoring: snapshot.ready, held: held)
    }

    /// The attached socket, if any.
    var connection: Connection? { socket.connection }
    /// The highest call id received.
    var lastCall: Int64 { calls.lastCall }
    /// Whether the page signalled `_dsb.dsinit`.
    var ready: Bool { readiness.isReady }
    /// Bytes of the invokes held until the page is ready.
    var heldBytes: Int { readiness.heldBytes }
    /// The `callbackId` the next native call gets.
    var nextCallbackId: Int64 { nativeCalls.nextCallbackId }

    // MARK: memory

    /// The bytes this session holds for the memory budget: its replay and queued
    /// messages, held invokes and sync-call bodies (0 once ended).
    var holding: Int { ended ? 0 : log.keptBytes + readiness.heldBytes + syncBodyBytes }

    /// What the daemon-wide ``MemoryBudget`` must add (negative: take back) for this
    /// session since the last time this was asked: the shell asks after every transition,
    /// under the same lock, and applies it (O(1)). Once the session has ended it has given
    /// everything back.
    mutating func takeMemoryDelta() -> Int {
        let now = holding
        defer { counted = now }
        return now - counted
    }

    /// Counts `bytes` more (negative: fewer) of sync-call bodies held for this session.
    mutating func holdSyncBody(_ bytes: Int) {
        syncBodyBytes += bytes
    }

    /// Messages held (before `dsinit`) or not yet acknowledged.
    var queuedCount: Int { readiness.held.count + log.keptCount }

    /// Replaces the session's tags. - Returns: whether to tell the journal.
    mutating func setTags(_ newTags: [String]) -> Bool {
        tags = newTags
        return journal?.tagsChanged(newTags) == true
    }

    // MARK: sockets

    /// How attaching a socket began.
    enum AttachStart: Sendable {
        /// The session has ended: refuse the socket.
        case ended
        /// `socket` is the session's socket now; `previous` is the one it had (to replace
        /// with 4009 once `socket` took its welcome, or to restore if it did not).
        case attached(previous: Connection?)
    }

    /// The first half of attaching `socket`: it becomes the session's socket and the log
    /// rewinds to the page's `ack`.
    mutating func attach(_ newSocket: Connection, ack: Int64) -> AttachStart {
        if ended { return .ended }
        let previous = socket.attach(newSocket)
        log.rewind(toAck: ack)
        return .attached(previous: previous)
    }

    /// `socket` closed before it took its welcome: the previous one stays.
    /// - Returns: the generation to schedule an expiry for, when no socket is left.
    mutating func attachFailed(restoring previous: Connection?) -> Int? {
        socket.attachFailed(restoring: previous)
    }

    /// `closed` closed. - Returns: the generation of the grace period that starts, or
    /// `nil` when it was not the attached one (or the session moved).
    mutating func detach(_ closed: Connection) -> Int? {
        socket.detach(closed, graceApplies: !hasMoved)
    }

    /// Whether the grace period of `generation` ended the session's chance of a socket.
    func isExpired(generation: Int) -> Bool {
        !ended && socket.isExpired(generation: generation)
    }

    /// The next frame for `attached`, if it is the attached one.
    mutating func takeFrame(for attached: Connection) -> [UInt8]? {
        guard socket.isAttached(attached) else { return nil }
        return log.takeFrame()
    }

    /// Whether messages wait to be written to `attached` (the attached one).
    func hasUnsentFrame(for attached: Connection) -> Bool {
        socket.isAttached(attached) && log.hasUnsent
    }

    /// No sync call of the socket is running and everything queued went to `attached`.
    func isSettled(for attached: Connection) -> Bool {
        calls.pendingCalls == 0 && (!socket.isAttached(attached) || !log.hasUnsent)
    }

    /// The page processed every message up to `seq`.
    /// - Returns: whether to tell the journal.
    @discardableResult
    mutating func acknowledge(_ seq: Int64) -> Bool {
        let before = log.ackedSeq
        log.acknowledge(seq)
        guard log.ackedSeq > before else { return false }
        return journal?.acknowledged(log.ackedSeq) == true
    }

    // MARK: ending

    /// What an ending leaves to do, outside the lock, in this order: cancel the tasks,
    /// close the socket, fail the native calls, resume the waiting sync calls (as not
    /// started), release the interfaces.
    struct Ending: Sendable {
        /// The journal keeps the session's records (it did not move): tell it they can go.
        let forgetJournal: Bool
        let connection: Connection?
        let handlers: [NativeCallHandler]
        let afterWaiters: [@Sendable (Bool) -> Void]
        let tasks: [Task<Void, Never>]
        let instances: [any ExposedInterface]
    }

    /// Ends the session. `dropQueued`: frees its queued and replay messages now instead of
    /// keeping what is unsent for the socket to write before its close. `pageClosed`: the
    /// page ended it (`_dsb.closePage`), so what is queued goes out before the close even if
    /// the journal does not hold it yet: a page never resumes a session it closed, so
    /// nothing it sees from here needs a replay (docs/CLUSTER.md, rule 2), and the `ret` of
    /// its closePage no longer waits for a round the session's end makes moot.
    /// - Returns: `nil` when it had ended already.
    mutating func end(dropQueued: Bool, pageClosed: Bool = false) -> Ending? {
        if ended { return nil }
        ended = true
        if pageClosed, let journal, !journal.hasMoved { log.setGated(false) }
        if dropQueued { log = OutboundLog(maxMessages: log.maxMessages, maxBytes: log.maxBytes, maxBatchBytes: log.maxBatchBytes) }
        let ending = Ending(
            forgetJournal: journal.map { !$0.hasMoved } ?? false,
            connection: connection, handlers: nativeCalls.removeAll(), afterWaiters: syncOrder.removeAll(),
            tasks: calls.removeCancellable(), instances: Array(instances.values))
        readiness.removeAll()
        instances.removeAll()
        return ending
    }

    // MARK: calls from the page

    /// A socket call arrived. - Returns: whether it runs (`false`: the session ended, or
    /// a resent call whose id is not above the last one: it ran already).
    mutating func acceptCall(id: Int64) -> Bool { !ended && calls.accept(id: id) }

    /// ``acceptCall(id:)``, and whether sync HTTP calls wait for socket calls at this moment
    /// (PROTOCOL.md 4). Only then can this call's start resume one, so only then is
    /// ``markStarted(through:)`` due after it: a sync call that comes to wait later finds
    /// ``lastCall`` at or above `id` already (it runs at once) or waits for a later call.
    mutating func acceptCallNotingWaiters(id: Int64) -> (runs: Bool, syncCallsWait: Bool) {
        (acceptCall(id: id), !syncOrder.waiters.isEmpty)
    }

    /// Counts `count` calls against the rate of `perSecond` at `now` (milliseconds).
    /// - Returns: milliseconds they must wait before they run; 0 means at once.
    mutating func takeCallTokens(_ count: Int, perSecond: Int, now: Int64) -> Int {
        calls.takeTokens(count, perSecond: perSecond, now: now)
    }

    /// A synchronous socket call suspended.
    /// - Returns: the socket whose reads must pause: the session reached `maxPending`.
    ///   (The pause is decided under the lock that counts, so a call ending at the same
    ///   moment cannot resume reads before this pause lands.)
    mutating func pendingCallStarted(maxPending: Int) -> Connection? {
        calls.pendingStarted(maxPending: maxPending) ? connection : nil
    }

    /// A suspended synchronous socket call answered.
    /// - Returns: the socket whose reads resume: the session is one below `maxPending` again.
    mutating func pendingCallFinished(maxPending: Int) -> Connection? {
        calls.pendingFinished(maxPending: maxPending) ? connection : nil
    }

    /// Whether reads of a socket attached now must pause for pending calls.
    func pausesReads(maxPending: Int) -> Bool { calls.pausesReads(maxPending: maxPending) }

    /// Admits one more async socket call unless `max` run already.
    mutating func admitAsyncCall(max: Int) -> Bool { calls.admitAsync(max: max) }

    /// An async call ended; `counted`: it was admitted by ``admitAsyncCall(max:)``.
    mutating func asyncCallFinished(callID: Int64?, counted: Bool) { calls.asyncFinished(callID: callID, counted: counted) }

    /// Keeps a running async call for `cancel`, unless it finished meanwhile.
    mutating func keepCancellable(_ call: AsyncCall, task: Task<Void, Never>?, callID: Int64) {
        calls.keepCancellable(call, task: task, callID: callID)
    }

    /// The running async call `callID`, for `cancel`.
    func cancellableCall(_ callID: Int64) -> PageCallBook.Cancellable? { calls.cancellableCall(callID) }

    /// The session's own instance of an interface factory's interface, if made.
    func instance(_ factoryID: Int) -> (any ExposedInterface)? { instances[factoryID] }

    /// Keeps `made` as the session's instance of `factoryID` unless another thread kept
    /// one first. - Returns: the instance to use.
    mutating func keepInstance(_ made: any ExposedInterface, factoryID: Int) -> any ExposedInterface {
        if let existing = instances[factoryID] { return existing }
        instances[factoryID] = made
        return made
    }

    // MARK: sync-call ordering (PROTOCOL.md 4)

    /// Socket calls up to `id` started. - Returns: the sync calls that waited for them.
    mutating func markStarted(through id: Int64) -> [@Sendable (Bool) -> Void] {
        syncOrder.started(through: id)
    }

    /// A sync call waits for socket calls up to `after`; `resume` runs when they start
    /// (`true`) or the session ends (`false`).
    mutating func waitForStarted(through after: Int64, resume: @escaping @Sendable (Bool) -> Void) -> SyncCallOrdering.WaitStart {
        syncOrder.wait(through: after, lastCall: lastCall, ended: ended, resume: resume)
    }

    /// The wait `key` timed out: it leaves the list, so waiters never pile up.
    mutating func stopWaiting(key: Int) {
        syncOrder.stopWaiting(key: key)
    }
}

// SPDX-License-Identifier: MIT
import DequeModule

/// What one page session holds, and every rule about how that changes, as a value.
///
/// Each mutating method makes one transition and returns what the caller must do after it
/// lets go of the session's lock: wake or pause a socket, run handlers, cancel tasks,
/// release interfaces. Nothing here blocks, reads a clock, schedules work or runs user
/// code, so tests drive it directly, one transition at a time. ``BridgeSession`` is the
/// shell: it holds this under its lock and carries out the returned actions.
///
/// `Connection` is the socket type (``BridgeConnection`` in the bridge; any class in tests).
/// Only its identity is used here.
struct SessionState<Connection: AnyObject & Sendable>: Sendable {
    /// A held native-initiated call: made before the page signalled `dsinit`.
    struct HeldInvoke: Sendable {
        let callbackId: Int64
        let invoke: EncodedInvoke
        /// Its size as measured when it was made (counted toward the replay bounds).
        let bytes: Int
    }

    /// A sync HTTP call waiting for socket calls (`X-DSBridge-After`).
    struct AfterWaiter: Sendable {
        let key: Int
        let after: Int64
        let resume: @Sendable (Bool) -> Void
    }

    /// A running async socket call with a stub, for `cancel`. `task` is nil for a method
    /// that started without suspending: nothing to cancel.
    struct Cancellable: Sendable {
        let call: AsyncCall
        let task: Task<Void, Never>?
    }

    private(set) var log: OutboundLog
    private(set) var connection: Connection?
    private(set) var ended = false
    private(set) var ready = false
    /// The highest call id received.
    private(set) var lastCall: Int64 = 0
    /// Sync socket calls that suspended and have not answered (`maxCallsPending`).
    private(set) var pendingCalls = 0
    /// Async socket calls running (`maxAsyncCalls`).
    private(set) var runningAsync = 0
    private(set) var held: [HeldInvoke] = []
    /// Bytes of the held invokes.
    private(set) var heldBytes = 0
    private(set) var nextCallbackId: Int64 = 1
    private var nativeCalls: [Int64: NativeCallHandler] = [:]
    /// Page answers whose handlers wait to run off the network thread, in order.
    private var answersToDeliver = Deque<(handler: NativeCallHandler, event: NativeCallEvent)>()
    /// A worker is running `answersToDeliver`.
    private var deliveringAnswers = false
    /// At most ``maxAfterWaiters``; each leaves at its start or its timeout.
    private(set) var afterWaiters: [AfterWaiter] = []
    private var nextAfterWaiterKey = 0
    /// Work waiting for `_dsb.dsinit`; dropped when the session ends.
    private var readyWaiters: [@Sendable () -> Void] = []
    /// Moves on every attach and detach, so an expiry scheduled earlier no longer applies.
    private(set) var detachGeneration = 0
    /// Per-session interface instances, by factory id.
    private var instances: [Int: any ExposedInterface] = [:]
    private var cancellable: [Int64: Cancellable] = [:]
    /// The session's call rate (`maxCallsPerSecond`), made at its first call.
    private var rate: CallRateLimiter?
    /// Bytes of sync-call requests held while their call waits or runs.
    private(set) var syncBodyBytes = 0
    /// What this session has counted in the daemon-wide ``MemoryBudget`` (``settle()``).
    private(set) var counted = 0
    private let memory: MemoryBudget

    /// Sync HTTP calls that may wait for socket calls at once; one more is refused.
    let maxAfterWaiters: Int

    init(log: OutboundLog, memory: MemoryBudget, maxAfterWaiters: Int = 1_024) {
        self.log = log
        self.memory = memory
        self.maxAfterWaiters = maxAfterWaiters
    }

    // MARK: memory

    /// The bytes this session holds for the memory budget: its replay and queued
    /// messages, held invokes and sync-call bodies (0 once ended).
    var holding: Int { ended ? 0 : log.keptBytes + heldBytes + syncBodyBytes }

    /// Brings the daemon-wide count up to date with ``holding`` (O(1); called after every
    /// change of what it sums). Once the session has ended it has given everything back.
    private mutating func settle() {
        let now = holding
        guard now != counted else { return }
        memory.add(now - counted)
        counted = now
    }

    /// Counts `bytes` more (negative: fewer) of sync-call bodies held for this session.
    mutating func holdSyncBody(_ bytes: Int) {
        syncBodyBytes += bytes
        settle()
    }

    /// Messages held (before `dsinit`) or not yet acknowledged.
    var queuedCount: Int { held.count + log.keptCount }

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
    mutating func attach(_ socket: Connection, ack: Int64) -> AttachStart {
        if ended { return .ended }
        let previous = connection
        connection = socket
        detachGeneration += 1
        log.rewind(toAck: ack)
        settle()
        return .attached(previous: previous)
    }

    /// `socket` closed before it took its welcome: the previous one stays.
    /// - Returns: the generation to schedule an expiry for, when no socket is left.
    mutating func attachFailed(restoring previous: Connection?) -> Int? {
        connection = previous
        return previous == nil ? detachGeneration : nil
    }

    /// `socket` closed. - Returns: the generation of the grace period that starts, or
    /// `nil` when it was not the attached one.
    mutating func detach(_ socket: Connection) -> Int? {
        guard connection === socket else { return nil }
        connection = nil
        detachGeneration += 1
        return detachGeneration
    }

    /// Whether the grace period of `generation` ended the session's chance of a socket.
    func isExpired(generation: Int) -> Bool {
        !ended && connection == nil && detachGeneration == generation
    }

    /// The next frame for `socket`, if it is the attached one.
    mutating func takeFrame(for socket: Connection) -> [UInt8]? {
        guard connection === socket else { return nil }
        return log.takeFrame()
    }

    /// Whether messages wait to be written to `socket` (the attached one).
    func hasUnsentFrame(for socket: Connection) -> Bool {
        connection === socket && log.hasUnsent
    }

    /// No sync call of the socket is running and everything queued went to `socket`.
    func isSettled(for socket: Connection) -> Bool {
        pendingCalls == 0 && (connection !== socket || !log.hasUnsent)
    }

    /// The page processed every message up to `seq`.
    mutating func acknowledge(_ seq: Int64) {
        log.acknowledge(seq)
        settle()
    }

    // MARK: ending

    /// What an ending leaves to do, outside the lock, in this order: cancel the tasks,
    /// close the socket, fail the native calls, resume the waiting sync calls (as not
    /// started), release the interfaces.
    struct Ending: Sendable {
        let connection: Connection?
        let handlers: [NativeCallHandler]
        let afterWaiters: [@Sendable (Bool) -> Void]
        let tasks: [Task<Void, Never>]
        let instances: [any ExposedInterface]
    }

    /// Ends the session. `dropQueued`: frees its queued and replay messages now instead of
    /// keeping what is unsent for the socket to write before its close.
    /// - Returns: `nil` when it had ended already.
    mutating func end(dropQueued: Bool) -> Ending? {
        if ended { return nil }
        ended = true
        if dropQueued { log = OutboundLog(maxMessages: log.maxMessages, maxBytes: log.maxBytes, maxBatchBytes: log.maxBatchBytes) }
        settle()  // every byte it counted goes back to the budget
        let ending = Ending(
            connection: connection, handlers: Array(nativeCalls.values), afterWaiters: afterWaiters.map(\.resume),
            tasks: cancellable.values.compactMap(\.task), instances: Array(instances.values))
        nativeCalls.removeAll()
        held.removeAll()
        heldBytes = 0
        readyWaiters.removeAll()
        afterWaiters.removeAll()
        cancellable.removeAll()
        instances.removeAll()
        return ending
    }

    // MARK: outbound

    /// The result of queueing a message: the socket to wake, and what went wrong.
    struct Appended: Sendable {
        var wake: Connection?
        var error: OutboundLog.AppendError?
    }

    /// Queues a sequenced message. One too large for the replay bound is replaced by an
    /// error (`ret`/`cb`) and reported as `.messageTooLarge`; overflowing a bound reports
    /// `.boundExceeded` (the shell ends the session with 4008).
    mutating func append(_ message: ServerMessage) -> Appended {
        defer { settle() }
        if ended { return Appended() }
        do throws(OutboundLog.AppendError) {
            _ = try log.append(message)
            return Appended(wake: connection)
        } catch .messageTooLarge(let bytes) {
            let tooLarge = CallFailure(.failed, "result too large (\(bytes) bytes)")
            let replacement: ServerMessage?
            switch message {
            case .ret(let id, _): replacement = .ret(id: id, result: .failure(tooLarge))
            case .cb(let stub, _): replacement = .cb(stub: stub, payload: .failure(tooLarge))
            default: replacement = nil
            }
            if let replacement { _ = try? log.append(replacement) }
            return Appended(wake: connection, error: .messageTooLarge(bytes: bytes))
        } catch {
            return Appended(error: error)
        }
    }

    /// Queues an invoke encoded off the lock (numbering it only copies bytes).
    private mutating func append(_ invoke: EncodedInvoke, callbackId: Int64) -> Appended {
        defer { settle() }
        if ended { return Appended() }
        do throws(OutboundLog.AppendError) {
            _ = try log.append { invoke.bytes(seq: $0, callbackId: callbackId) }
            return Appended(wake: connection)
        } catch .messageTooLarge(let bytes) {
            return Appended(wake: connection, error: .messageTooLarge(bytes: bytes))
        } catch {
            return Appended(error: error)
        }
    }

    // MARK: calls from the page

    /// A socket call arrived. - Returns: whether it runs (`false`: the session ended, or
    /// a resent call whose id is not above the last one: it ran already).
    mutating func acceptCall(id: Int64) -> Bool {
        if ended || id <= lastCall { return false }
        lastCall = id
        return true
    }

    /// Counts `count` calls against the rate of `perSecond` at `now` (milliseconds).
    /// - Returns: milliseconds they must wait before they run; 0 means at once.
    mutating func takeCallTokens(_ count: Int, perSecond: Int, now: Int64) -> Int {
        var limiter = rate ?? CallRateLimiter(perSecond: perSecond, now: now)
        let wait = limiter.take(count, now: now)
        rate = limiter
        return wait
    }

    /// A synchronous socket call suspended (it answers later).
    /// - Returns: the socket whose reads must pause: the session reached `maxPending`.
    ///   (The pause is decided under the lock that counts, so a call ending at the same
    ///   moment cannot resume reads before this pause lands.)
    mutating func pendingCallStarted(maxPending: Int) -> Connection? {
        pendingCalls += 1
        return pendingCalls == maxPending ? connection : nil
    }

    /// A suspended synchronous socket call answered.
    /// - Returns: the socket whose reads resume: the session is one below `maxPending` again.
    mutating func pendingCallFinished(maxPending: Int) -> Connection? {
        pendingCalls -= 1
        return pendingCalls == maxPending - 1 ? connection : nil
    }

    /// Whether reads of a socket attached now must pause for pending calls.
    func pausesReads(maxPending: Int) -> Bool { pendingCalls >= maxPending }

    /// Admits one more async socket call unless `max` run already.
    mutating func admitAsyncCall(max: Int) -> Bool {
        guard runningAsync < max else { return false }
        runningAsync += 1
        return true
    }

    /// An async call ended; `counted`: it was admitted by ``admitAsyncCall(max:)``.
    mutating func asyncCallFinished(callID: Int64?, counted: Bool) {
        if counted { runningAsync -= 1 }
        if let callID { cancellable.removeValue(forKey: callID) }
    }

    /// Keeps a running async call for `cancel`, unless it finished meanwhile.
    mutating func keepCancellable(_ call: AsyncCall, task: Task<Void, Never>?, callID: Int64) {
        if call.isRunning { cancellable[callID] = Cancellable(call: call, task: task) }
    }

    /// The running async call `callID`, for `cancel`.
    func cancellableCall(_ callID: Int64) -> Cancellable? { cancellable[callID] }

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
        var resumed: [@Sendable (Bool) -> Void] = []
        afterWaiters.removeAll { w in
            guard w.after <= id else { return false }
            resumed.append(w.resume)
            return true
        }
        return resumed
    }

    /// How a sync call's wait for socket calls begins.
    enum AfterWaitStart: Sendable, Equatable {
        /// They started: run now.
        case started
        /// The session ended: it never will.
        case ended
        /// ``maxAfterWaiters`` wait already: refuse.
        case full
        /// Waiting; remove it with this key at its timeout.
        case waiting(key: Int)
    }

    /// A sync call waits for socket calls up to `after`; `resume` runs when they start
    /// (`true`) or the session ends (`false`).
    mutating func waitForStarted(through after: Int64, resume: @escaping @Sendable (Bool) -> Void) -> AfterWaitStart {
        if ended { return .ended }
        if lastCall >= after { return .started }
        if afterWaiters.count >= maxAfterWaiters { return .full }
        let key = nextAfterWaiterKey
        nextAfterWaiterKey += 1
        afterWaiters.append(AfterWaiter(key: key, after: after, resume: resume))
        return .waiting(key: key)
    }

    /// The wait `key` timed out: it leaves the list, so waiters never pile up.
    mutating func stopWaiting(key: Int) {
        afterWaiters.removeAll { $0.key == key }
    }

    // MARK: readiness (`_dsb.dsinit`)

    /// What the page becoming ready releases.
    struct Readiness: Sendable {
        /// The held invokes, now queued, with what queueing each gave.
        let released: [(callbackId: Int64, appended: Appended)]
        /// ``whenReady(_:)`` bodies, to run after the invokes went out.
        let waiters: [@Sendable () -> Void]
    }

    /// The page signalled `dsinit`. - Returns: `nil` when it had already.
    mutating func markReady() -> Readiness? {
        if ready { return nil }
        ready = true
        let releasing = held
        held.removeAll()
        heldBytes = 0
        let released = releasing.map { h in (h.callbackId, append(h.invoke, callbackId: h.callbackId)) }
        let waiters = readyWaiters
        readyWaiters.removeAll()
        return Readiness(released: released, waiters: waiters)
    }

    /// When `body` runs relative to the page's readiness.
    enum WhenReady: Sendable, Equatable { case now, later, never }

    /// Keeps `body` for ``markReady()`` unless the page is ready (`.now`) or the session
    /// ended (`.never`).
    mutating func whenReady(_ body: @escaping @Sendable () -> Void) -> WhenReady {
        if ended { return .never }
        if ready { return .now }
        readyWaiters.append(body)
        return .later
    }

    // MARK: native → page

    /// How a native-initiated call began.
    enum NativeCallStart: Sendable {
        /// The session ended: fail it with `sessionEnded`.
        case ended
        /// The invoke alone exceeds `replayMaxBytes`: fail it; no `callbackId` was used.
        case tooLarge(bytes: Int)
        /// Held or queued as `callbackId`; `appended` says whom to wake and what went wrong.
        case queued(callbackId: Int64, appended: Appended)
    }

    /// Numbers and queues an invoke (or holds it until `dsinit`), keeping `handler` for
    /// the page's answers. Invokes go out in the order made.
    mutating func startNativeCall(_ invoke: EncodedInvoke, handler: @escaping NativeCallHandler) -> NativeCallStart {
        if ended { return .ended }
        let callbackId = nextCallbackId
        if !ready {
            // Held like any queued message: measured now (with the seq it would get if
            // released next), counted toward the replay bounds.
            let bytes = invoke.size(seq: log.lastSeq + Int64(held.count) + 1, callbackId: callbackId)
            if bytes > log.maxBytes { return .tooLarge(bytes: bytes) }
            nextCallbackId += 1
            nativeCalls[callbackId] = handler  // an overflow ends the session, which fails it
            if held.count + log.keptCount + 1 > log.maxMessages {
                return .queued(
                    callbackId: callbackId,
                    appended: Appended(
                        error: .boundExceeded("\(log.maxMessages) messages held or unacknowledged (replayMaxMessages)")))
            }
            if heldBytes + log.keptBytes + bytes > log.maxBytes {
                return .queued(
                    callbackId: callbackId,
                    appended: Appended(
                        error: .boundExceeded("over \(log.maxBytes) bytes held or unacknowledged (replayMaxBytes)")))
            }
            held.append(HeldInvoke(callbackId: callbackId, invoke: invoke, bytes: bytes))
            heldBytes += bytes
            settle()
            return .queued(callbackId: callbackId, appended: Appended())
        }
        let appended = append(invoke, callbackId: callbackId)
        // Too large: never queued, and it uses no callbackId (PROTOCOL.md 2.4).
        if case .messageTooLarge(let bytes)? = appended.error { return .tooLarge(bytes: bytes) }
        nextCallbackId += 1
        nativeCalls[callbackId] = handler
        return .queued(callbackId: callbackId, appended: appended)
    }

    /// The handler of native call `callbackId`; `final`: the call is over (it leaves).
    mutating func nativeCallHandler(_ callbackId: Int64, final: Bool) -> NativeCallHandler? {
        final ? nativeCalls.removeValue(forKey: callbackId) : nativeCalls[callbackId]
    }

    /// Stops waiting for native call `callbackId` (a held one is never delivered now).
    /// - Returns: its handler, if it was still waiting.
    mutating func abandonNativeCall(_ callbackId: Int64) -> NativeCallHandler? {
        if let i = held.firstIndex(where: { $0.callbackId == callbackId }) {
            heldBytes -= held[i].bytes
            held.remove(at: i)
            settle()
        }
        return nativeCalls.removeValue(forKey: callbackId)
    }

    /// Who runs the handler of a page's answer.
    enum AnswerDelivery: Sendable, Equatable {
        /// The caller, now (nothing waits ahead of it).
        case caller
        /// The worker already delivering this session's answers.
        case runningWorker
        /// A new worker: start one (``takeAnswers()`` until it returns nothing).
        case newWorker
    }

    /// A page answered a native call. `callerMayRun`: the calling thread may run
    /// application code (it is not the network thread); answers still go in order.
    mutating func deliver(_ event: NativeCallEvent, to handler: @escaping NativeCallHandler, callerMayRun: Bool) -> AnswerDelivery {
        if callerMayRun, !deliveringAnswers, answersToDeliver.isEmpty { return .caller }
        answersToDeliver.append((handler, event))
        if deliveringAnswers { return .runningWorker }
        deliveringAnswers = true
        return .newWorker
    }

    /// The answers queued for the delivering worker, all at once (one lock per burst);
    /// none: the worker stops.
    mutating func takeAnswers() -> Deque<(handler: NativeCallHandler, event: NativeCallEvent)> {
        if answersToDeliver.isEmpty {
            deliveringAnswers = false
            return []
        }
        let taken = answersToDeliver
        answersToDeliver.removeAll()
        return taken
    }
}

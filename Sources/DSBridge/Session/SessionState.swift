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
    // A call reads most fields from `log` to `journal`: declared together, so that they
    // share memory lines (a struct's fields are laid out in declaration order); with
    // thousands of sessions each calling now and then, every other line is a cache miss.
    /// The session's call rate (`maxCallsPerSecond`), made at its first call.
    private var rate: CallRateLimiter?
    /// At most ``maxAfterWaiters``; each leaves at its start or its timeout.
    private(set) var afterWaiters: [AfterWaiter] = []
    /// What this session has counted in the daemon-wide ``MemoryBudget`` (``settle()``).
    private(set) var counted = 0
    private let memory: MemoryBudget
    /// With a journal (cluster mode): the write-ahead state (docs/CLUSTER.md).
    private(set) var journal: SessionJournalState?
    /// Cluster mode: a `_dsb.dsinit` was accepted (the journal holds the page as ready even
    /// before it ran here; a snapshot says so too).
    private var readyAccepted = false
    /// Async socket calls running (`maxAsyncCalls`).
    private(set) var runningAsync = 0
    private(set) var held: [HeldInvoke] = []
    /// Bytes of the held invokes.
    private(set) var heldBytes = 0
    private(set) var nextCallbackId: Int64 = 1
    /// The native calls waiting for the page's answers, by callbackId.
    private var nativeCalls: [Int64: NativeCallReceiver] = [:]
    /// Page calls (`_dsb.returnValue`) whose answer the journal passes to its origin with
    /// their acceptance: their run must not pass it again.
    private var answersPassedByJournal: Set<Int64> = []
    /// Page answers whose handlers wait to run off the network thread, in order.
    private var answersToDeliver = Deque<(handler: NativeCallHandler, event: NativeCallEvent)>()
    /// A worker is running `answersToDeliver`.
    private var deliveringAnswers = false
    private var nextAfterWaiterKey = 0
    /// Work waiting for `_dsb.dsinit`; dropped when the session ends.
    private var readyWaiters: [@Sendable () -> Void] = []
    /// Moves on every attach and detach, so an expiry scheduled earlier no longer applies.
    private(set) var detachGeneration = 0
    /// Per-session interface instances, by factory id.
    private var instances: [Int: any ExposedInterface] = [:]
    private var cancellable: [Int64: Cancellable] = [:]
    /// Bytes of sync-call requests held while their call waits or runs.
    private(set) var syncBodyBytes = 0
    /// Tags for group calls (`user:42`, `room:7`).
    private(set) var tags: [String] = []

    /// Sync HTTP calls that may wait for socket calls at once; one more is refused.
    let maxAfterWaiters: Int

    init(log: OutboundLog, memory: MemoryBudget, maxAfterWaiters: Int = 1_024, journal: SessionJournalState? = nil) {
        self.log = log
        self.memory = memory
        self.maxAfterWaiters = maxAfterWaiters
        self.journal = journal
        if journal != nil { self.log.setGated(true) }
    }

    /// A session continued from a journal's `snapshot` with `log` (restored from it).
    /// Native calls get `handlers` (by `callbackId`).
    init(
        restoring snapshot: SessionSnapshot, log: OutboundLog, memory: MemoryBudget, maxAfterWaiters: Int = 1_024,
        handlers: [Int64: NativeCallHandler]
    ) {
        self.init(log: log, memory: memory, maxAfterWaiters: maxAfterWaiters)
        journal = SessionJournalState(restoring: snapshot)
        self.log.setGated(true)
        // Ready with invokes still held (a dsinit accepted on a lost node): not ready until
        // the restore releases them (``BridgeSession/finishRestoring(_:)``).
        ready = snapshot.ready && snapshot.held.isEmpty
        lastCall = snapshot.lastCall
        nextCallbackId = snapshot.nextCallbackId
        tags = snapshot.tags
        nativeCalls = handlers.mapValues { NativeCallReceiver(handler: $0, answersInline: false) }
        for h in snapshot.held {
            let invoke = EncodedInvoke(tail: h.tail)
            let bytes = invoke.size(seq: log.lastSeq + Int64(held.count) + 1, callbackId: h.callbackId)
            held.append(HeldInvoke(callbackId: h.callbackId, invoke: invoke, bytes: bytes))
            heldBytes += bytes
        }
        settle()
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

    /// Replaces the session's tags. - Returns: whether to tell the journal.
    mutating func setTags(_ newTags: [String]) -> Bool {
        tags = newTags
        journal?.recordTags(newTags)
        return journal?.needsRegistration() ?? false
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
        // A session that moved has no grace period here: it only finishes its calls.
        return hasMoved ? nil : detachGeneration
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
    /// - Returns: whether to tell the journal.
    @discardableResult
    mutating func acknowledge(_ seq: Int64) -> Bool {
        let before = log.ackedSeq
        log.acknowledge(seq)
        settle()
        guard log.ackedSeq > before, journal != nil else { return false }
        journal?.recordAck(log.ackedSeq)
        return journal?.needsRegistration() ?? false
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
        if pageClosed, let journal, journal.mode != .moved { log.setGated(false) }
        if dropQueued { log = OutboundLog(maxMessages: log.maxMessages, maxBytes: log.maxBytes, maxBatchBytes: log.maxBatchBytes) }
        settle()  // every byte it counted goes back to the budget
        let ending = Ending(
            forgetJournal: journal != nil && journal?.mode != .moved,
            connection: connection, handlers: nativeCalls.values.map(\.handler), afterWaiters: afterWaiters.map(\.resume),
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
        /// The session went dirty: tell the journal.
        var registerJournal = false
        /// The session moved: pass these to its owner instead (docs/CLUSTER.md, late messages).
        var late: [LateMessage] = []
    }

    /// Queues a sequenced message. One too large for the replay bound is replaced by an
    /// error (`ret`/`cb`) and reported as `.messageTooLarge`; overflowing a bound reports
    /// `.boundExceeded` (the shell ends the session with 4008).
    /// `run`: what the message does to its call's run-table entry (journaled sessions).
    mutating func append(_ message: ServerMessage, run: RunChange? = nil) -> Appended {
        defer { settle() }
        if ended { return Appended() }
        if let journal, journal.mode == .moved {
            // The call's entry here ends with its final message all the same: a drain waits
            // for the calls still running here (``callsRunningHere``), not for the new owner.
            if let run { self.journal?.applyAfterMove(run) }
            guard journal.passesAfterMove(run), let late = SequencedMessage(encoded: message.encoded(seq: 0), seq: 0)
            else { return Appended() }
            return Appended(late: [LateMessage(message: late, run: run)])
        }
        do throws(OutboundLog.AppendError) {
            _ = try log.append(message)
            return journaled(Appended(wake: connection), run: run)
        } catch .messageTooLarge(let bytes) {
            let tooLarge = CallFailure(.failed, "result too large (\(bytes) bytes)")
            let replacement: ServerMessage?
            var replacementRun = run
            switch message {
            case .ret(let id, _):
                replacement = .ret(id: id, result: .failure(tooLarge))
                replacementRun = RunChange(id: id, entry: nil)  // a failed ret is final
            case .cb(let stub, _): replacement = .cb(stub: stub, payload: .failure(tooLarge))
            default: replacement = nil
            }
            var appended = Appended(wake: connection, error: .messageTooLarge(bytes: bytes))
            if let replacement, (try? log.append(replacement)) != nil { appended = journaled(appended, run: replacementRun) }
            return appended
        } catch {
            return Appended(error: error)
        }
    }

    /// Appends a message another node produced for this session (docs/CLUSTER.md, late
    /// messages), numbered here.
    /// `consumed`: it came from the head of the journal's late list (the next batch
    /// removes it there).
    mutating func appendLate(_ late: LateMessage, consumed: Bool) -> Appended {
        defer { settle() }
        if ended { return Appended() }
        if journal?.mode == .moved { return Appended(late: [late]) }
        if consumed { journal?.recordLateConsumed(1) }
        // A message of a call that is not open any more is dropped: the call got its final
        // answer here already (its node was taken for lost while it still ran, or the
        // message came twice).
        if let run = late.run, journal?.openCalls[run.id] == nil { return journaled(Appended(), run: nil, appended: false) }
        // A progress `cb` changes no entry: it goes only while a call waits for completions
        // on its stub (after the call's final error here, none does).
        if late.run == nil, late.message.kind == .cb, journal?.awaitsCompletion(late.message) != true {
            return journaled(Appended(), run: nil, appended: false)
        }
        do throws(OutboundLog.AppendError) {
            _ = try log.append { late.message.bytes(seq: $0) }
            return journaled(Appended(wake: connection), run: late.run)
        } catch {
            // Too large or over a bound here: the message was accepted by the node that
            // made it; the session ends (4008) like any overflow.
            if case .messageTooLarge(let bytes) = error {
                return Appended(error: .boundExceeded("a message of \(bytes) bytes from another node exceeds replayMaxBytes"))
            }
            return Appended(error: error)
        }
    }

    /// Records the message just appended in the journal, if any (`appended`: false when
    /// nothing was appended, only records such as a late message consumed).
    private mutating func journaled(_ appended: Appended, run: RunChange?, appended didAppend: Bool = true) -> Appended {
        guard didAppend else {
            var a = appended
            a.registerJournal = journal?.needsRegistration() ?? false
            return a
        }
        guard journal != nil, let bytes = log.lastBytes else { return appended }
        journal?.record(JournalMessage(seq: log.lastSeq, bytes: bytes, run: run))
        var a = appended
        a.registerJournal = journal?.needsRegistration() ?? false
        // Held back until the journal has it: the write's report wakes the socket then
        // (``journalWritten(_:_:)``); waking it now would find nothing to send.
        if !log.hasUnsent { a.wake = nil }
        return a
    }

    /// Queues an invoke encoded off the lock (numbering it only copies bytes).
    private mutating func append(_ invoke: EncodedInvoke, callbackId: Int64) -> Appended {
        defer { settle() }
        if ended { return Appended() }
        if journal?.mode == .moved {
            guard let late = SequencedMessage(encoded: invoke.bytes(seq: 0, callbackId: callbackId), seq: 0) else { return Appended() }
            return Appended(late: [LateMessage(message: late, run: nil)])
        }
        do throws(OutboundLog.AppendError) {
            _ = try log.append { invoke.bytes(seq: $0, callbackId: callbackId) }
            return journaled(Appended(wake: connection), run: nil)
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

    /// Journaled sessions: a frame brings socket calls `ids`; they run once their acceptance
    /// is durable (docs/CLUSTER.md, rule 1). `resume` gets the outcome when the answer is
    /// `.wait`; `runAhead`: they may run before that (``RunAheadCalls``); `marksReady`: one
    /// of them is `_dsb.dsinit`, so the page's readiness is written with their acceptance.
    /// - Returns: the gate, and whether to tell the journal.
    /// `answers`, `localNode`: see ``SessionJournalState/acceptCalls(_:localLastCall:runAhead:answers:localNode:resume:)``.
    mutating func gateCalls(
        _ ids: [Int64], runAhead: Bool = false, marksReady: Bool = false, answers: [Int64: ReturnValueAnswer] = [:],
        localNode: String? = nil, resume: @escaping SessionJournalState.CallWaiter
    ) -> (gate: SessionJournalState.CallGate, register: Bool) {
        guard journal != nil, !ended else { return (.open, false) }
        let accepted = journal?.acceptCalls(
            ids, localLastCall: lastCall, runAhead: runAhead, answers: answers, localNode: localNode, resume: resume)
        let gate = accepted?.gate ?? .open
        answersPassedByJournal.formUnion(accepted?.passed ?? [])
        if marksReady, gate != .moved {
            readyAccepted = true
            journal?.recordReady()
        }
        // Calls that run ahead register the session with their first message (a ret), so
        // their acceptance and that message go in one write: registered now, the journal's
        // thread could take the acceptance alone a moment before the ret and cost the call
        // a second round (seen in CI: 45 rounds for 30 sequential calls instead of 30).
        if runAhead, gate == .open, !marksReady { return (gate, false) }
        return (gate, journal?.needsRegistration() ?? false)
    }

    /// Whether calls `ids` may run without waiting for the journal.
    func isAcceptanceDurable(_ ids: [Int64]) -> Bool {
        guard let journal, !ended else { return true }
        switch journal.mode {
        case .unjournaled: return true
        case .moved: return false
        case .journaled:
            let highest = ids.max() ?? 0
            return highest <= lastCall || highest <= journal.durableCall
        }
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
        if afterWaiters.isEmpty { return [] }
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
        /// The session went dirty: tell the journal.
        let registerJournal: Bool
    }

    /// The page signalled `dsinit`. - Returns: `nil` when it had already.
    mutating func markReady() -> Readiness? {
        if ready { return nil }
        ready = true
        journal?.recordReady()
        let releasing = held
        held.removeAll()
        heldBytes = 0
        for h in releasing { journal?.recordHeld(h.callbackId, tail: nil) }
        let released = releasing.map { h in (h.callbackId, append(h.invoke, callbackId: h.callbackId)) }
        let waiters = readyWaiters
        readyWaiters.removeAll()
        let register = journal?.needsRegistration() ?? false
        return Readiness(released: released, waiters: waiters, registerJournal: register)
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
    /// `origin`: where the call's answers go when the session moves (journaled sessions).
    /// `answersInline`: `handler` never blocks and runs no application code, so the thread
    /// that reads the page's answer may run it.
    mutating func startNativeCall(
        _ invoke: EncodedInvoke, origin: String? = nil, answersInline: Bool = false, handler: @escaping NativeCallHandler
    ) -> NativeCallStart {
        if ended { return .ended }
        var start = startNativeCallUnjournaled(invoke, NativeCallReceiver(handler: handler, answersInline: answersInline))
        if journal != nil, case .queued(let callbackId, var appended) = start {
            journal?.recordNextCallbackId(nextCallbackId)
            if let origin { journal?.recordNativeCall(callbackId, origin: origin) }
            if let h = held.last, h.callbackId == callbackId { journal?.recordHeld(callbackId, tail: h.invoke.tail) }
            appended.registerJournal = (journal?.needsRegistration() ?? false) || appended.registerJournal
            start = .queued(callbackId: callbackId, appended: appended)
        }
        return start
    }

    private mutating func startNativeCallUnjournaled(_ invoke: EncodedInvoke, _ receiver: NativeCallReceiver) -> NativeCallStart {
        let callbackId = nextCallbackId
        if !ready {
            // Held like any queued message: measured now (with the seq it would get if
            // released next), counted toward the replay bounds.
            let bytes = invoke.size(seq: log.lastSeq + Int64(held.count) + 1, callbackId: callbackId)
            if bytes > log.maxBytes { return .tooLarge(bytes: bytes) }
            nextCallbackId += 1
            nativeCalls[callbackId] = receiver  // an overflow ends the session, which fails it
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
        nativeCalls[callbackId] = receiver
        return .queued(callbackId: callbackId, appended: appended)
    }

    /// Who receives the answers of native call `callbackId`; `final`: the call is over (it
    /// leaves, and the journal is told).
    /// Whether the journal passes the answer that page call `callID` brings (and forgets it).
    mutating func takeAnswerPassedByJournal(_ callID: Int64?) -> Bool {
        guard let callID else { return false }
        return answersPassedByJournal.remove(callID) != nil
    }

    mutating func nativeCallReceiver(_ callbackId: Int64, final: Bool) -> NativeCallReceiver? {
        guard final else { return nativeCalls[callbackId] }
        let receiver = nativeCalls.removeValue(forKey: callbackId)
        if receiver != nil { journal?.recordNativeCall(callbackId, origin: nil) }
        return receiver
    }

    /// Whether the journal must be told about records made since (a native call ended).
    mutating func journalNeedsRegistration() -> Bool {
        journal?.needsRegistration() ?? false
    }

    /// Stops waiting for native call `callbackId` (a held one is never delivered now).
    /// - Returns: its handler, if it was still waiting.
    mutating func abandonNativeCall(_ callbackId: Int64) -> NativeCallHandler? {
        if let i = held.firstIndex(where: { $0.callbackId == callbackId }) {
            heldBytes -= held[i].bytes
            held.remove(at: i)
            journal?.recordHeld(callbackId, tail: nil)
            settle()
        }
        return nativeCallReceiver(callbackId, final: true)?.handler
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

    // MARK: journal (cluster mode, docs/CLUSTER.md)

    /// Takes what the journal must write now; `nil` when nothing (or a batch is out).
    mutating func takeJournalBatch() -> JournalBatch? {
        guard !ended, var batch = journal?.takeBatch(lastSeq: log.lastSeq) else { return nil }
        if batch.isSnapshot, let journal {
            batch.created = journal.identity
            batch.messages = log.kept
            batch.lastCall = max(lastCall, journal.requestedCall)
            batch.acked = log.ackedSeq
            batch.runTable = journal.openCalls.sorted { $0.key < $1.key }.map { ($0.key, $0.value.entry, $0.value.runner) }
            batch.nativeCalls = journal.nativeOrigins.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            batch.held = held.map { ($0.callbackId, $0.invoke.tail) }
            batch.ready = ready || readyAccepted
            batch.nextCallbackId = nextCallbackId
            batch.tags = tags
        }
        return batch
    }

    /// What the outcome of a journal write leaves to do outside the lock.
    struct JournalReport: Sendable {
        /// Frames whose calls waited: run them (`.open`) or drop them (`.moved`).
        var resumed: [(resume: SessionJournalState.CallWaiter, gate: SessionJournalState.CallGate)] = []
        /// Messages became sendable: wake this socket.
        var wake: Connection?
        /// Tell the journal again (more records came meanwhile).
        var register = false
        /// The session moved: pass these to the owner, and let go of the session here.
        var late: [LateMessage]?
        /// The socket to close because the session moved.
        var closeMoved: Connection?
        /// Work that waited for the session's record to be durable.
        var created: [@Sendable () -> Void] = []
    }

    /// A journal write of `batch` ended with `outcome`.
    mutating func journalWritten(_ batch: JournalBatch, _ outcome: JournalOutcome) -> JournalReport {
        guard journal != nil else { return JournalReport() }
        let report = journal?.report(batch, outcome) ?? .init()
        var result = JournalReport(resumed: report.resumed, register: report.register, created: report.created)
        if let seq = report.durableSeq, !ended {
            let before = log.hasUnsent
            log.markDurable(through: seq)
            if !before, log.hasUnsent { result.wake = connection }
        }
        if report.ungate {
            log.setGated(false)
            result.wake = connection
        }
        if let late = report.late {
            letGo()
            result.late = late.compactMap(lateMessage)
            result.closeMoved = connection
        }
        settle()
        return result
    }

    /// The session moved: what is not durable leaves the log (it goes to the owner as late
    /// messages), and the native calls are forgotten here without failing them (their
    /// answers reach their origin through the new owner).
    private mutating func letGo() {
        _ = log.takeUndurable()
        nativeCalls.removeAll()
        held.removeAll()
        heldBytes = 0
        readyWaiters.removeAll()
    }

    /// Another node took the session over (its notice came before any failed write).
    mutating func moveAway() -> JournalReport? {
        guard let moved = journal?.moveAway() else { return nil }
        letGo()
        settle()
        return JournalReport(
            resumed: moved.dropped.map { ($0, .moved) }, late: moved.late.compactMap(lateMessage),
            closeMoved: connection)
    }

    /// The open calls of `node` among `calls` (a lost node's), which still wait for their
    /// final answer here.
    func openCalls(of node: String, among calls: [(id: Int64, entry: RunEntry)]) -> [(id: Int64, entry: RunEntry)] {
        guard let journal else { return [] }
        return calls.filter { c in journal.openCalls[c.id].map { $0.runner == node && $0.entry == c.entry } ?? false }
    }

    /// The journal (re)connected: the next batch is a full snapshot (it may have lost what
    /// it held). - Returns: whether to tell the journal.
    mutating func journalReconnected() -> Bool {
        guard !ended, let (wasUnjournaled, register) = journal?.reconnected() else { return false }
        if wasUnjournaled { log.setGated(true) }
        return register
    }

    /// Whether the session moved to another node.
    var hasMoved: Bool { journal?.mode == .moved }

    /// Runs `body` once the new session's record is durable (cluster mode).
    /// - Returns: whether it was kept (else run it now), and whether to tell the journal.
    mutating func whenJournalCreated(_ body: @escaping @Sendable () -> Void) -> (kept: Bool, register: Bool) {
        guard !ended, journal?.whenCreated(body) == true else { return (false, false) }
        return (true, journal?.needsRegistration() ?? false)
    }

    /// A message not durable when the session moved, as the new owner gets it; `nil` when
    /// it does not go there (``SessionJournalState/passesAfterMove(_:)``).
    private func lateMessage(_ m: JournalMessage) -> LateMessage? {
        guard journal?.passesAfterMove(m.run) ?? true else { return nil }
        return SequencedMessage(encoded: m.bytes, seq: m.seq).map { LateMessage(message: $0, run: m.run) }
    }
}

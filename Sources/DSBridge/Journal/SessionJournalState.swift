// SPDX-License-Identifier: MIT

/// A journaled session's side of the write-ahead rules (docs/CLUSTER.md), as a value: the
/// records not yet written, the batch being written, the durable marks, and the calls
/// waiting for their acceptance to be durable. ``SessionState`` keeps it beside its log and
/// calls it under the session's lock; nothing here blocks or runs user code.
struct SessionJournalState: Sendable {
    enum Mode: Sendable, Equatable {
        /// Writes go to the journal; calls and messages wait for them.
        case journaled
        /// The journal is unreachable: the session goes on without it; a snapshot is due
        /// when it comes back.
        case unjournaled
        /// Another node owns the session now.
        case moved
    }

    /// What a frame's calls may do.
    enum CallGate: Sendable, Equatable {
        /// Run them now.
        case open
        /// Wait: the resume closure given runs with the outcome once their acceptance is
        /// durable (``CallGate/open``) or the session moved (``CallGate/moved``).
        case wait
        /// Drop them unrun: the session moved, the page resends them to the new owner.
        case moved
    }

    typealias CallWaiter = @Sendable (CallGate) -> Void

    private(set) var mode = Mode.journaled
    let identity: SessionIdentity
    private var createdWritten: Bool

    // Records not yet taken, in the order they happened.
    private var messages: [JournalMessage] = []
    private var accepted: [Int64] = []
    private var lastCall: Int64?
    /// The page's acknowledgement not written yet. Written lazily (docs/CLUSTER.md, rule 3):
    /// only once it is ``ackSlack`` past the one written last (or with a snapshot), so most
    /// rounds do not trim the journal's log; a resume rewinds to the page's own `ack`.
    private var acked: Int64?
    /// The acknowledgement the last batch carried.
    private var writtenAcked: Int64 = 0
    /// How far the page's acknowledgement runs ahead of the journal's before a batch
    /// carries it: the journal keeps at most this many acknowledged messages per session.
    static let ackSlack: Int64 = 32
    /// Whether the pending acknowledgement is due in the next batch.
    private var ackDue: Bool {
        guard let acked else { return false }
        return acked - writtenAcked >= Self.ackSlack
    }
    private var nativeCalls: [(callbackId: Int64, origin: String?)] = []
    private var held: [(callbackId: Int64, tail: [UInt8]?)] = []
    private var ready: Bool?
    private var nextCallbackId: Int64?
    private var tags: [String]?
    /// The next batch must be a full snapshot (the journal came back).
    private(set) var snapshotDue = false

    /// The highest call id whose acceptance was asked for / is durable.
    private(set) var requestedCall: Int64
    private(set) var durableCall: Int64
    /// A batch was taken and its outcome is not known yet.
    private(set) var writing = false
    /// The journal was told this session has something to write and has not taken it.
    private var registered = false
    /// Another node took the session over while a batch was being written: whatever that
    /// write's outcome, the session moves once it is known.
    private var moveRequested = false
    /// Work waiting for the new session's record to be durable (its welcome, the answer to
    /// `POST /dsbridge/session`).
    private var createdWaiters: [@Sendable () -> Void] = []

    /// Whether the record of this new session is not durable yet (and the journal is used).
    var creationPending: Bool { !createdWritten && mode == .journaled }

    /// Runs `body` once the session's record is durable: `false` when it is already (or the
    /// journal is not used: run it now), `true` when it was kept.
    mutating func whenCreated(_ body: @escaping @Sendable () -> Void) -> Bool {
        guard creationPending else { return false }
        createdWaiters.append(body)
        return true
    }
    private var callWaiters: [(through: Int64, resume: CallWaiter)] = []

    /// A call accepted and not finished: its entry, and the node running it when that is
    /// not this one.
    struct OpenCall: Sendable, Equatable {
        var entry: RunEntry
        var runner: String?
    }

    /// Calls accepted and not finished (kept for snapshots), whatever the mode.
    private(set) var openCalls: [Int64: OpenCall] = [:]
    /// Late messages appended since the last batch (their list entries leave with it).
    private var lateConsumed = 0
    /// Answers to native calls of other nodes, passed to them with the next write.
    private var answers: [PassedAnswer] = []
    /// Origins of native-initiated calls waiting for the page (kept for snapshots).
    private(set) var nativeOrigins: [Int64: String] = [:]

    /// A new session's journal state.
    init(identity: SessionIdentity) {
        self.identity = identity
        createdWritten = false
        requestedCall = 0
        durableCall = 0
    }

    /// The journal state of a session continued from `snapshot` (its identity is written
    /// already; its `lastCall` is durable).
    init(restoring snapshot: SessionSnapshot) {
        identity = snapshot.identity
        createdWritten = true
        requestedCall = snapshot.lastCall
        durableCall = snapshot.lastCall
        writtenAcked = snapshot.acked
        for r in snapshot.run where !snapshot.lostNodes.contains(r.node) { openCalls[r.id] = OpenCall(entry: r.entry, runner: r.node) }
        for n in snapshot.nativeCalls { nativeOrigins[n.callbackId] = n.origin }
    }

    // MARK: records

    /// Whether records wait to be taken.
    private var hasRecords: Bool {
        !createdWritten || snapshotDue || lateConsumed > 0 || !messages.isEmpty || !accepted.isEmpty || lastCall != nil || ackDue
            || !nativeCalls.isEmpty || !held.isEmpty || ready != nil || nextCallbackId != nil || tags != nil || !answers.isEmpty
    }

    /// After recording: whether the caller must tell the journal (the session went dirty).
    mutating func needsRegistration() -> Bool {
        guard mode == .journaled, !registered, !writing, hasRecords else { return false }
        registered = true
        return true
    }

    /// Whether `message` is a `cb` for the stub of a call still open here (its `ret` went
    /// out and its final completion did not).
    func awaitsCompletion(_ message: SequencedMessage) -> Bool {
        openCalls.values.contains { call in
            if case .needsCompletion(let stub) = call.entry { message.isCallback(for: stub) } else { false }
        }
    }

    /// A message was appended to the log.
    mutating func record(_ message: JournalMessage) {
        if let run = message.run { apply(run) }
        if mode == .journaled { messages.append(message) }
    }

    /// The session moved: a message of a call still running here went to the new owner as
    /// a late message; its change ends the call's entry here too.
    mutating func applyAfterMove(_ change: RunChange) {
        apply(change)
    }

    private mutating func apply(_ change: RunChange) {
        if let entry = change.entry {
            openCalls[change.id] = OpenCall(entry: entry, runner: change.runner ?? openCalls[change.id]?.runner)
        } else {
            openCalls.removeValue(forKey: change.id)
        }
    }

    mutating func recordAck(_ seq: Int64) {
        if mode == .journaled { acked = max(acked ?? 0, seq) }
    }

    mutating func recordReady() {
        if mode == .journaled { ready = true }
    }

    mutating func recordNextCallbackId(_ next: Int64) {
        if mode == .journaled { nextCallbackId = next }
    }

    mutating func recordNativeCall(_ callbackId: Int64, origin: String?) {
        if let origin { nativeOrigins[callbackId] = origin } else if nativeOrigins.removeValue(forKey: callbackId) == nil { return }
        if mode == .journaled { nativeCalls.append((callbackId, origin)) }
    }

    mutating func recordHeld(_ callbackId: Int64, tail: [UInt8]?) {
        if mode == .journaled { held.append((callbackId, tail)) }
    }

    mutating func recordLateConsumed(_ count: Int) {
        if mode == .journaled { lateConsumed += count }
    }

    mutating func recordTags(_ newTags: [String]) {
        if mode == .journaled { tags = newTags }
    }

    // MARK: calls

    /// Whether a native call made on another node than `node` waits for the page (then its
    /// answers go with the journal's writes: ``acceptCalls(_:localLastCall:runAhead:answers:localNode:resume:)``).
    func waitsForCallsOfOtherNodes(than node: String) -> Bool {
        nativeOrigins.values.contains { CallOrigin(parsing: $0)?.node != node }
    }

    /// A frame brings calls `ids` (in order; the session's highest accepted id is
    /// `localLastCall`). New ones are recorded as accepted; they may run once that is
    /// durable, or at once with `runAhead` (``RunAheadCalls``) when no earlier call waits.
    /// `resume` is kept when the answer is ``CallGate/wait``.
    ///
    /// `answers`: the page's answers to native calls among them (`_dsb.returnValue`, by
    /// call id); those of calls made on another node than `localNode` are recorded with
    /// their acceptance, so the write that makes the acceptance durable passes them on.
    /// - Returns: the gate, and the ids of the calls whose answers the journal passes on
    ///   (their run must not pass them again).
    mutating func acceptCalls(
        _ ids: [Int64], localLastCall: Int64, runAhead: Bool = false, answers: [Int64: ReturnValueAnswer] = [:],
        localNode: String? = nil, resume: @escaping CallWaiter
    ) -> (gate: CallGate, passed: [Int64]) {
        switch mode {
        case .moved: return (.moved, [])
        case .unjournaled:
            for id in ids where id > localLastCall { openCalls[id] = OpenCall(entry: .needsReturn) }
            return (.open, [])
        case .journaled: break
        }
        var through = localLastCall
        var passed: [Int64] = []
        for id in ids where id > max(requestedCall, localLastCall, through) {
            accepted.append(id)
            openCalls[id] = OpenCall(entry: .needsReturn)
            through = id
            if let localNode, let answer = answers[id], let origin = nativeOrigins[answer.callbackId],
                CallOrigin(parsing: origin)?.node != localNode
            {
                self.answers.append(PassedAnswer(origin: origin, event: answer.event, pageCall: id))
                passed.append(id)
            }
        }
        if through > requestedCall {
            requestedCall = through
            lastCall = through
        }
        let highest = ids.max() ?? 0
        if highest <= durableCall || highest <= localLastCall { return (.open, passed) }
        // Recorded above, so the next batch writes their acceptance all the same.
        if runAhead, callWaiters.isEmpty { return (.open, passed) }
        callWaiters.append((highest, resume))
        return (.wait, passed)
    }

    // MARK: writing

    /// Takes the records as a batch (`lastSeq`: the log's; `throughSeq`: the last message
    /// in it). `nil` when there is nothing to write or a batch is being written.
    mutating func takeBatch(lastSeq: Int64) -> JournalBatch? {
        registered = false
        guard mode == .journaled, !writing, hasRecords else { return nil }
        var batch = JournalBatch(session: identity.id, throughSeq: lastSeq, throughCall: requestedCall)
        if !createdWritten { batch.created = identity }
        batch.messages = messages
        batch.lastSeq = lastSeq
        batch.accepted = accepted
        batch.lastCall = lastCall
        if ackDue || snapshotDue, let acked {
            batch.acked = acked
            writtenAcked = acked
            self.acked = nil
        }
        batch.nativeCalls = nativeCalls
        batch.held = held
        batch.ready = ready
        batch.nextCallbackId = nextCallbackId
        batch.tags = tags
        batch.isSnapshot = snapshotDue
        batch.lateConsumed = lateConsumed
        batch.answers = answers
        answers.removeAll()
        lateConsumed = 0
        messages.removeAll()
        accepted.removeAll()
        nativeCalls.removeAll()
        held.removeAll()
        (lastCall, ready, nextCallbackId, tags) = (nil, nil, nil, nil)
        snapshotDue = false
        writing = true
        return batch
    }

    /// What the outcome of a batch leaves to do.
    struct Report: Sendable {
        /// Calls to run (`.open`) or drop (`.moved`).
        var resumed: [(resume: CallWaiter, gate: CallGate)] = []
        /// The log's durable mark moves here (`nil`: unchanged).
        var durableSeq: Int64?
        /// The session went dirty again: tell the journal.
        var register = false
        /// The journal became unreachable: open the log's gate.
        var ungate = false
        /// The session moved: messages not durable, to pass to the new owner.
        var late: [JournalMessage]?
        /// Work that waited for the session's record (run it now).
        var created: [@Sendable () -> Void] = []
    }

    /// `batch` ended with `outcome`.
    mutating func report(_ batch: JournalBatch, _ outcome: JournalOutcome) -> Report {
        writing = false
        var report = Report()
        // Whatever the outcome, nothing waits for the record any more: it is durable, or the
        // session goes on without the journal, or it belongs to another node.
        report.created = createdWaiters
        createdWaiters.removeAll()
        var outcome = outcome
        if moveRequested, outcome != .moved {
            // The batch was durable (or not) before the other node's claim: its messages are
            // the new owner's; what came since moves there.
            if outcome == .written {
                report.durableSeq = batch.throughSeq
                durableCall = max(durableCall, batch.throughCall)
            }
            outcome = .moved
        }
        switch outcome {
        case .written:
            if batch.created != nil { createdWritten = true }
            durableCall = max(durableCall, batch.throughCall)
            report.durableSeq = batch.throughSeq
            callWaiters.removeAll { w in
                guard w.through <= durableCall else { return false }
                report.resumed.append((w.resume, .open))
                return true
            }
            report.register = needsRegistration()
        case .unavailable:
            // The records are dropped: the snapshot taken when the journal is back holds it all.
            mode = .unjournaled
            clearRecords()
            durableCall = max(durableCall, requestedCall)
            report.resumed = callWaiters.map { ($0.resume, .open) }
            callWaiters.removeAll()
            report.ungate = true
        case .moved:
            mode = .moved
            // A batch written before the claim is the new owner's already; only the rest moves.
            report.late = (report.durableSeq != nil ? [] : batch.messages) + messages
            clearRecords()
            // Calls whose acceptance is durable run here all the same (the new owner waits for
            // their answers as late messages); the others are dropped: the page resends them.
            report.resumed = callWaiters.map { ($0.resume, $0.through <= durableCall ? .open : .moved) }
            callWaiters.removeAll()
        }
        return report
    }

    /// Whether a message with `run`'s effect goes to the new owner once the session moved.
    /// Not when its call's acceptance never became durable here (a call that ran ahead,
    /// ``RunAheadCalls``): the new owner's journal does not hold the call, so the page sends
    /// it again there and that run answers it; passing this one too would answer it twice.
    func passesAfterMove(_ run: RunChange?) -> Bool {
        guard let run else { return true }
        return run.id <= durableCall
    }

    /// The session moved (a notice from the new owner) while nothing was being written.
    /// - Returns: the messages not durable and the calls to drop; `nil` when a batch is
    ///   being written (its report will say `moved`) or the session had moved already.
    mutating func moveAway() -> (late: [JournalMessage], dropped: [CallWaiter])? {
        guard mode != .moved else { return nil }
        if writing {
            moveRequested = true
            return nil
        }
        mode = .moved
        let late = messages
        clearRecords()
        let dropped = callWaiters.map(\.resume)
        callWaiters.removeAll()
        return (late, dropped)
    }

    /// The journal (re)connected: it may have lost what it held (a restart), or missed
    /// writes while it was unreachable; the next batch is a full snapshot.
    /// - Returns: whether the session was ``Mode/unjournaled`` (its log must gate again),
    ///   and whether to tell the journal.
    mutating func reconnected() -> (wasUnjournaled: Bool, register: Bool) {
        switch mode {
        case .moved: return (false, false)
        case .unjournaled:
            mode = .journaled
            snapshotDue = true
            return (true, needsRegistration())
        case .journaled:
            snapshotDue = true
            return (false, needsRegistration())
        }
    }

    private mutating func clearRecords() {
        messages.removeAll()
        accepted.removeAll()
        nativeCalls.removeAll()
        held.removeAll()
        (lastCall, acked, ready, nextCallbackId, tags) = (nil, nil, nil, nil, nil)
        lateConsumed = 0
        registered = false
    }
}

// SPDX-License-Identifier: MIT

/// A session's side of the cluster's journal (docs/CLUSTER.md), as a value owned by
/// ``SessionState`` in cluster mode only: ``SessionState`` holds it as an optional, so a
/// single node's transitions never ask it anything.
///
/// It keeps the write-ahead records (``SessionJournalState``) and what the session's other
/// machines need from them: which page calls run (their acceptance durable), what a
/// snapshot holds, which messages pass to the new owner once the session moved, and
/// whether the journal must be told the session has something to write (each event
/// returns that as `register`). The outbound log is passed in where a journal event
/// changes it (durable marks, the gate on unsent messages).
struct SessionJournalGate: Sendable {
    /// The write-ahead records.
    private(set) var records: SessionJournalState
    /// A `_dsb.dsinit` was accepted (the journal holds the page as ready even before it
    /// ran here; a snapshot says so too).
    private var readyAccepted = false
    /// Page calls (`_dsb.returnValue`) whose answer the journal passes to its origin with
    /// their acceptance: their run must not pass it again.
    private var answersPassed: Set<Int64> = []

    init(_ records: SessionJournalState) {
        self.records = records
    }

    /// Whether the session moved to another node.
    var hasMoved: Bool { records.mode == .moved }

    /// Whether the journal must be told about records made since.
    mutating func needsRegistration() -> Bool { records.needsRegistration() }

    // MARK: records of the session's transitions

    /// The session's tags changed. - Returns: `register`.
    mutating func tagsChanged(_ tags: [String]) -> Bool {
        records.recordTags(tags)
        return records.needsRegistration()
    }

    /// The page's acknowledgement moved to `seq`. - Returns: `register`.
    mutating func acknowledged(_ seq: Int64) -> Bool {
        records.recordAck(seq)
        return records.needsRegistration()
    }

    /// The page became ready, releasing the held invokes `released`.
    mutating func pageBecameReady(releasing released: [Int64]) {
        records.recordReady()
        for callbackId in released { records.recordHeld(callbackId, tail: nil) }
    }

    /// A native call started as `callbackId` (`heldTail`: it is held until the page is
    /// ready; `origin`: where its answers go). - Returns: `register`.
    mutating func nativeCallStarted(_ callbackId: Int64, nextCallbackId: Int64, origin: String?, heldTail: [UInt8]?) -> Bool {
        records.recordNextCallbackId(nextCallbackId)
        if let origin { records.recordNativeCall(callbackId, origin: origin) }
        if let heldTail { records.recordHeld(callbackId, tail: heldTail) }
        return records.needsRegistration()
    }

    /// Native call `callbackId` is over.
    mutating func nativeCallEnded(_ callbackId: Int64) {
        records.recordNativeCall(callbackId, origin: nil)
    }

    /// The held invoke `callbackId` was dropped.
    mutating func heldDropped(_ callbackId: Int64) {
        records.recordHeld(callbackId, tail: nil)
    }

    /// `log` just numbered a message (its last): recorded with `run`, unless there is none.
    /// - Returns: `register`, and whether the message can be written now (else the write's
    ///   report wakes the socket: ``written(_:_:log:ended:)``).
    mutating func recordAppended(in log: OutboundLog, run: RunChange?) -> (register: Bool, sendable: Bool)? {
        guard let bytes = log.lastBytes else { return nil }
        records.record(JournalMessage(seq: log.lastSeq, bytes: bytes, run: run))
        return (records.needsRegistration(), log.hasUnsent)
    }

    // MARK: the session moved

    /// A message made after the session moved (`bytes`, unnumbered): the call's entry here
    /// ends with its final message all the same (a drain waits for the calls still running
    /// here, not for the new owner). - Returns: the late message for the new owner, `nil`
    /// when it does not go there.
    mutating func lateAfterMove(_ bytes: [UInt8], run: RunChange?) -> LateMessage? {
        if let run { records.applyAfterMove(run) }
        guard records.passesAfterMove(run), let late = SequencedMessage(encoded: bytes, seq: 0) else { return nil }
        return LateMessage(message: late, run: run)
    }

    /// A message not durable when the session moved, as the new owner gets it; `nil` when
    /// it does not go there (``SessionJournalState/passesAfterMove(_:)``).
    func lateMessage(_ m: JournalMessage) -> LateMessage? {
        guard records.passesAfterMove(m.run) else { return nil }
        return SequencedMessage(encoded: m.bytes, seq: m.seq).map { LateMessage(message: $0, run: m.run) }
    }

    /// What becomes of a message another node made for this session.
    enum LateAdmission: Sendable, Equatable {
        /// Number and append it here.
        case append
        /// Drop it (its call got its final answer here already); `register`.
        case drop(register: Bool)
        /// The session moved on again: pass it to the new owner.
        case passOn
    }

    /// A message another node made for this session arrived (`consumed`: from the head of
    /// the journal's late list, which the next batch trims).
    mutating func lateArrived(_ late: LateMessage, consumed: Bool) -> LateAdmission {
        if hasMoved { return .passOn }
        if consumed { records.recordLateConsumed(1) }
        // A message of a call that is not open any more is dropped: the call got its final
        // answer here already (its node was taken for lost while it still ran, or the
        // message came twice).
        if let run = late.run, records.openCalls[run.id] == nil { return .drop(register: records.needsRegistration()) }
        // A progress `cb` changes no entry: it goes only while a call waits for completions
        // on its stub (after the call's final error here, none does).
        if late.run == nil, late.message.kind == .cb, !records.awaitsCompletion(late.message) {
            return .drop(register: records.needsRegistration())
        }
        return .append
    }

    // MARK: calls from the page

    /// A frame brings socket calls `ids` (`lastCall`: the highest id received); they run
    /// once their acceptance is durable (docs/CLUSTER.md, rule 1). `resume` gets the outcome
    /// when the answer is `.wait`; `runAhead`: they may run before that (``RunAheadCalls``);
    /// `marksReady`: one of them is `_dsb.dsinit`, so the page's readiness is written with
    /// their acceptance. `answers`, `localNode`: see
    /// ``SessionJournalState/acceptCalls(_:localLastCall:runAhead:answers:localNode:resume:)``.
    /// - Returns: the gate, and `register`.
    mutating func acceptCalls(
        _ ids: [Int64], lastCall: Int64, runAhead: Bool, marksReady: Bool, answers: [Int64: ReturnValueAnswer], localNode: String?,
        resume: @escaping SessionJournalState.CallWaiter
    ) -> (gate: SessionJournalState.CallGate, register: Bool) {
        let accepted = records.acceptCalls(
            ids, localLastCall: lastCall, runAhead: runAhead, answers: answers, localNode: localNode, resume: resume)
        answersPassed.formUnion(accepted.passed)
        if marksReady, accepted.gate != .moved {
            readyAccepted = true
            records.recordReady()
        }
        // Calls that run ahead register the session with their first message (a ret), so
        // their acceptance and that message go in one write: registered now, the journal's
        // thread could take the acceptance alone a moment before the ret and cost the call
        // a second round (seen in CI: 45 rounds for 30 sequential calls instead of 30).
        if runAhead, accepted.gate == .open, !marksReady { return (accepted.gate, false) }
        return (accepted.gate, records.needsRegistration())
    }

    /// Whether calls `ids` may run without waiting for the journal (`lastCall`: the
    /// highest id received).
    func isAcceptanceDurable(_ ids: [Int64], lastCall: Int64) -> Bool {
        switch records.mode {
        case .unjournaled: return true
        case .moved: return false
        case .journaled:
            let highest = ids.max() ?? 0
            return highest <= lastCall || highest <= records.durableCall
        }
    }

    /// Whether the journal passes the answer that page call `callID` brings (and forgets it).
    mutating func takeAnswerPassed(_ callID: Int64) -> Bool {
        answersPassed.remove(callID) != nil
    }

    /// The open calls of `node` among `calls` (a lost node's), which still wait for their
    /// final answer here.
    func openCalls(of node: String, among calls: [(id: Int64, entry: RunEntry)]) -> [(id: Int64, entry: RunEntry)] {
        calls.filter { c in records.openCalls[c.id].map { $0.runner == node && $0.entry == c.entry } ?? false }
    }

    // MARK: writes

    /// What the session holds, for a snapshot batch.
    struct SessionParts {
        let log: OutboundLog
        let lastCall: Int64
        let held: [PageReadiness.HeldInvoke]
        let ready: Bool
        let nextCallbackId: Int64
        let tags: [String]
    }

    /// Takes what the journal must write now; `nil` when nothing (or a batch is out). A
    /// snapshot (`isSnapshot`) is then filled by ``fillSnapshot(_:from:)``.
    mutating func takeBatch(lastSeq: Int64) -> JournalBatch? {
        records.takeBatch(lastSeq: lastSeq)
    }

    /// Fills the snapshot `batch` with what the session holds (`p`) and the records.
    func fillSnapshot(_ batch: inout JournalBatch, from p: SessionParts) {
        batch.created = records.identity
        batch.messages = p.log.kept
        batch.lastCall = max(p.lastCall, records.requestedCall)
        batch.acked = p.log.ackedSeq
        batch.runTable = records.openCalls.sorted { $0.key < $1.key }.map { ($0.key, $0.value.entry, $0.value.runner) }
        batch.nativeCalls = records.nativeOrigins.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        batch.held = p.held.map { ($0.callbackId, $0.invoke.tail) }
        batch.ready = p.ready || readyAccepted
        batch.nextCallbackId = p.nextCallbackId
        batch.tags = p.tags
    }

    /// What a journal write's outcome did to the session, for its owner to finish.
    struct Written: Sendable {
        /// Frames whose calls waited: run them (`.open`) or drop them (`.moved`).
        var resumed: [(resume: SessionJournalState.CallWaiter, gate: SessionJournalState.CallGate)]
        /// Messages became sendable: wake the socket.
        var wake = false
        /// Tell the journal again (more records came meanwhile).
        var register: Bool
        /// The session moved: let go of it here (its log's undurable messages are gone
        /// already) and pass these to the owner.
        var late: [LateMessage]?
        /// Work that waited for the session's record to be durable.
        var created: [@Sendable () -> Void]
    }

    /// A journal write of `batch` ended with `outcome` (`ended`: the session is over).
    mutating func written(_ batch: JournalBatch, _ outcome: JournalOutcome, log: inout OutboundLog, ended: Bool) -> Written {
        let report = records.report(batch, outcome)
        var result = Written(resumed: report.resumed, register: report.register, created: report.created)
        if let seq = report.durableSeq, !ended {
            let before = log.hasUnsent
            log.markDurable(through: seq)
            if !before, log.hasUnsent { result.wake = true }
        }
        if report.ungate {
            log.setGated(false)
            result.wake = true
        }
        if let late = report.late {
            _ = log.takeUndurable()
            result.late = late.compactMap(lateMessage)
        }
        return result
    }

    /// Another node took the session over (its notice came before any failed write): what
    /// is not durable leaves `log`. - Returns: the frames waiting for calls' acceptance (to
    /// drop) and the late messages for the owner; `nil` when it had moved already.
    mutating func moveAway(log: inout OutboundLog) -> (dropped: [SessionJournalState.CallWaiter], late: [LateMessage])? {
        guard let moved = records.moveAway() else { return nil }
        _ = log.takeUndurable()
        return (moved.dropped, moved.late.compactMap(lateMessage))
    }

    /// The journal (re)connected: the next batch is a full snapshot (it may have lost what
    /// it held); a session that went on without it gates its unsent messages again.
    /// - Returns: `register`.
    mutating func reconnected(log: inout OutboundLog) -> Bool {
        let (wasUnjournaled, register) = records.reconnected()
        if wasUnjournaled { log.setGated(true) }
        return register
    }

    /// Runs `body` once the new session's record is durable.
    /// - Returns: whether it was kept (else run it now), and `register`.
    mutating func whenCreated(_ body: @escaping @Sendable () -> Void) -> (kept: Bool, register: Bool) {
        guard records.whenCreated(body) else { return (false, false) }
        return (true, records.needsRegistration())
    }
}

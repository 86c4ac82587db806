// SPDX-License-Identifier: MIT

/// ``SessionState``'s transitions in cluster mode (docs/CLUSTER.md), made through its
/// ``SessionJournalGate``: calls waiting for their acceptance, late messages from other
/// nodes, the journal's batches and their outcomes, and a move to another node. On a single
/// node the gate is absent and each of these answers at once.
extension SessionState {
    /// Journaled sessions: a frame brings socket calls `ids`; see
    /// ``SessionJournalGate/acceptCalls(_:lastCall:runAhead:marksReady:answers:localNode:resume:)``.
    /// - Returns: the gate (`.open` on a single node or once ended), and whether to tell the journal.
    mutating func gateCalls(
        _ ids: [Int64], runAhead: Bool = false, marksReady: Bool = false, answers: [Int64: ReturnValueAnswer] = [:],
        localNode: String? = nil, resume: @escaping SessionJournalState.CallWaiter
    ) -> (gate: SessionJournalState.CallGate, register: Bool) {
        guard !ended, journal != nil else { return (.open, false) }
        let lastCall = calls.lastCall
        let accepted = journal?.acceptCalls(
            ids, lastCall: lastCall, runAhead: runAhead, marksReady: marksReady, answers: answers, localNode: localNode, resume: resume)
        return accepted ?? (.open, false)
    }

    /// Whether calls `ids` may run without waiting for the journal.
    func isAcceptanceDurable(_ ids: [Int64]) -> Bool {
        guard let journal, !ended else { return true }
        return journal.isAcceptanceDurable(ids, lastCall: lastCall)
    }

    /// Appends a message another node produced for this session (docs/CLUSTER.md, late
    /// messages), numbered here.
    /// `consumed`: it came from the head of the journal's late list (the next batch
    /// removes it there).
    mutating func appendLate(_ late: LateMessage, consumed: Bool) -> Appended {
        if ended { return Appended() }
        switch journal?.lateArrived(late, consumed: consumed) {
        case .passOn: return Appended(late: [late])
        case .drop(let register): return Appended(registerJournal: register)
        case .append: break
        case nil:
            // Without a journal no call is open here (the bridge gives late messages only to
            // journaled sessions): only a message outside any call is appended.
            if late.run != nil || late.message.kind == .cb { return Appended() }
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

    /// Takes what the journal must write now; `nil` when nothing (or a batch is out).
    mutating func takeJournalBatch() -> JournalBatch? {
        guard !ended, var batch = journal?.takeBatch(lastSeq: log.lastSeq) else { return nil }
        if batch.isSnapshot {
            let parts = SessionJournalGate.SessionParts(
                log: log, lastCall: lastCall, held: readiness.held, ready: ready, nextCallbackId: nativeCalls.nextCallbackId, tags: tags)
            journal?.fillSnapshot(&batch, from: parts)
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
        guard let written = journal?.written(batch, outcome, log: &log, ended: ended) else { return JournalReport() }
        var report = JournalReport(resumed: written.resumed, register: written.register, created: written.created)
        if written.wake { report.wake = connection }
        if let late = written.late {
            letGo()
            report.late = late
            report.closeMoved = connection
        }
        return report
    }

    /// The session moved (its log gave up what was not durable already): the native calls
    /// are forgotten here without failing them (their answers reach their origin through
    /// the new owner), held invokes and ready waiters dropped.
    private mutating func letGo() {
        nativeCalls.forgetAll()
        readiness.removeAll()
    }

    /// Another node took the session over (its notice came before any failed write).
    mutating func moveAway() -> JournalReport? {
        guard let moved = journal?.moveAway(log: &log) else { return nil }
        letGo()
        return JournalReport(resumed: moved.dropped.map { ($0, .moved) }, late: moved.late, closeMoved: connection)
    }

    /// The open calls of `node` among `calls` (a lost node's), which still wait for their
    /// final answer here.
    func openCalls(of node: String, among calls: [(id: Int64, entry: RunEntry)]) -> [(id: Int64, entry: RunEntry)] {
        journal?.openCalls(of: node, among: calls) ?? []
    }

    /// The journal (re)connected: the next batch is a full snapshot (it may have lost what
    /// it held). - Returns: whether to tell the journal.
    mutating func journalReconnected() -> Bool {
        guard !ended else { return false }
        return journal?.reconnected(log: &log) == true
    }

    /// Whether the session moved to another node.
    var hasMoved: Bool { journal?.hasMoved == true }

    /// Runs `body` once the new session's record is durable (cluster mode).
    /// - Returns: whether it was kept (else run it now), and whether to tell the journal.
    mutating func whenJournalCreated(_ body: @escaping @Sendable () -> Void) -> (kept: Bool, register: Bool) {
        guard !ended else { return (false, false) }
        return journal?.whenCreated(body) ?? (false, false)
    }
}

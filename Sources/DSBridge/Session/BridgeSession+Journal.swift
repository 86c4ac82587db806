// SPDX-License-Identifier: MIT

/// The session's side of a cluster's journal (docs/CLUSTER.md): what the journal takes and
/// reports, calls waiting for their acceptance to be durable, and a move to another node.
extension BridgeSession {
    /// Whether the session writes ahead to a journal (the bridge has one).
    public var isJournaled: Bool { transition { $0.journal != nil } }

    /// Whether another node owns the session now (it only finishes calls that ran here).
    public var hasMoved: Bool { transition { $0.hasMoved } }

    /// The session's tags, for group calls (`user:42`, `room:7`).
    public var tags: [String] { transition { $0.tags } }

    /// Replaces the session's tags (a cluster finds tagged sessions on every node). A tag
    /// no group call could name (empty, `.`, `..`, or holding a `/`) is left out, with a
    /// warning in the log.
    public func setTags(_ tags: [String]) {
        let unaddressable = tags.filter { !SessionTag.isAddressable($0) }
        if !unaddressable.isEmpty {
            logger.warning(
                "tags left out: a group call could not name them (empty, \".\", \"..\" or holding \"/\"): \(unaddressable.map { "\"\($0.prefix(100))\"" }.joined(separator: ", "))",
                metadata: ["bridge.session": "\(id)"])
        }
        let unique = Array(Set(tags.filter(SessionTag.isAddressable))).sorted()
        if transition({ $0.setTags(unique) }) { bridge.journal?.sessionNeedsWrite(self) }
    }

    /// A new session's record is due (its first write).
    func journalSessionCreated() {
        if transition({ $0.journalNeedsRegistration() }) { bridge.journal?.sessionNeedsWrite(self) }
    }

    /// Journal thread: what to write now (`nil`: nothing, or a write is out).
    public func takeJournalBatch() -> JournalBatch? {
        transition { $0.takeJournalBatch() }
    }

    /// Journal thread: the write of `batch` ended with `outcome`. Waiting calls run (or are
    /// dropped when the session moved), sendable messages wake the socket; nothing here
    /// blocks.
    public func journalWritten(_ batch: JournalBatch, outcome: JournalOutcome) {
        carryOut(transition { $0.journalWritten(batch, outcome) })
    }

    /// The journal (re)connected: it may have restarted empty or missed writes, so the
    /// next batch is a full snapshot of the session.
    public func journalReconnected() {
        if transition({ $0.journalReconnected() }) { bridge.journal?.sessionNeedsWrite(self) }
    }

    /// Another node took the session over: let go of it here. Calls still running finish
    /// and their messages go to the new owner (``SessionJournal/passLate(_:of:)``).
    public func moveAway() {
        if let report = transition({ $0.moveAway() }) { carryOut(report) }
    }

    /// Calls accepted here that have not given their final answer (journaled sessions; a
    /// drain waits for them, so their answers reach the page wherever it resumed).
    public var callsRunningHere: Int {
        transition { s in s.journal?.records.openCalls.values.reduce(0) { $0 + ($1.runner == nil ? 1 : 0) } ?? 0 }
    }

    /// Whether calls `ids` may run without waiting for the journal (their acceptance is
    /// durable, they ran already, or the journal is unreachable).
    func isAcceptanceDurable(_ ids: [Int64]) -> Bool {
        transition { $0.isAcceptanceDurable(ids) }
    }

    /// Journaled sessions: a frame brings socket calls `ids`; see
    /// ``SessionState/gateCalls(_:runAhead:marksReady:answers:localNode:resume:)``.
    /// `answers`: the page's answers to native calls among them, by call id.
    func gateCalls(
        _ ids: [Int64], runAhead: Bool = false, marksReady: Bool = false, answers: [Int64: ReturnValueAnswer] = [:],
        resume: @escaping SessionJournalState.CallWaiter
    ) -> SessionJournalState.CallGate {
        let localNode = bridge.journal?.nodeID
        let (gate, register) = transition {
            $0.gateCalls(ids, runAhead: runAhead, marksReady: marksReady, answers: answers, localNode: localNode, resume: resume)
        }
        if register { bridge.journal?.sessionNeedsWrite(self) }
        return gate
    }

    /// Runs `body` once this session's record is durable (cluster mode; at once otherwise):
    /// a token is handed out only when any node can resume it.
    public func whenRecorded(_ body: @escaping @Sendable () -> Void) {
        let (kept, register) = transition { $0.whenJournalCreated(body) }
        if register { bridge.journal?.sessionNeedsWrite(self) }
        if !kept { body() }
    }

    /// Cluster mode: whether a native call made on another node waits for this page (its
    /// answers are then read from the page's frames before they run).
    var waitsForCallsOfOtherNodes: Bool {
        guard let node = bridge.journal?.nodeID else { return false }
        return transition { $0.journal?.records.waitsForCallsOfOtherNodes(than: node) ?? false }
    }

    /// Cluster mode: where the answers of native call `callbackId` go (`NODE|REF`), when the
    /// journal recorded it; a session that moved keeps this for the invokes it passes on.
    package func nativeCallOrigin(_ callbackId: Int64) -> String? {
        transition { $0.journal?.records.nativeOrigins[callbackId] }
    }

    private func carryOut(_ report: SessionState<BridgeConnection>.JournalReport) {
        for body in report.created { body() }
        for (resume, gate) in report.resumed { resume(gate) }
        report.wake?.waker.wake()
        if report.register { bridge.journal?.sessionNeedsWrite(self) }
        guard let late = report.late else { return }
        logger.info("session moved to another node", metadata: ["bridge.session": "\(id)"])
        bridge.forgetMoved(self)
        bridge.journal?.sessionMovedAway(self)
        report.closeMoved?.requestClose(code: 4009, reason: "session moved to another node")
        if !late.isEmpty { bridge.journal?.passLate(late, of: self) }
    }

    /// `node` is gone: each of `calls` (its run-table entries here) that is still open gets
    /// its final error (`ret` code -1, or a final `cb` when its `ret` went out already).
    public func failCallsOfLostNode(_ node: String, calls: [(id: Int64, entry: RunEntry)]) {
        let open = transition { $0.openCalls(of: node, among: calls) }
        if !open.isEmpty { sendFinalErrors(open, node: node) }
    }

    /// Final errors for `calls` (run-table entries), which ran on `node`, now lost.
    func sendFinalErrors(_ calls: [(id: Int64, entry: RunEntry)], node: String) {
        // A runner id may carry its node's incarnation (`NAME#INC`): the page is told the name.
        let name = node.split(separator: "#", maxSplits: 1).first.map(String.init) ?? node
        let failure = CallFailure(.failed, "node \(name) was lost while the call ran")
        for (id, entry) in calls {
            switch entry {
            case .needsReturn:
                send(.ret(id: id, result: .failure(failure)), run: RunChange(id: id, entry: nil))
            case .needsCompletion(let stub):
                send(.cb(stub: stub, payload: .failure(failure)), run: RunChange(id: id, entry: nil))
            }
        }
    }

    /// Appends messages another node produced for this session (late messages), numbered
    /// here. `consumed`: they are the head of the journal's late list, which the next
    /// journal write trims by as many.
    public func appendLate(_ messages: [LateMessage], consumed: Bool = true) {
        for m in messages {
            carryOut(transition { $0.appendLate(m, consumed: consumed) }, site: .worker)
        }
    }
}

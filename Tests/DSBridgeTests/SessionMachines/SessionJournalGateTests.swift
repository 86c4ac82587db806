// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridge

/// ``SessionJournalGate`` driven directly: every state × event in a table (the session's
/// last socket call is 0 throughout), then the snapshot it fills.
@Suite("Session journal gate machine")
struct SessionJournalGateTests: TransitionTable {
    static let identity = SessionIdentity(id: "s", token: "t", peerAddress: "127.0.0.1", origin: nil, createdAtMs: 0)

    /// A gate in a named state. `new`: a new session's (its record not written, nothing
    /// registered). `registered`: `new` after the journal was told. `calling`: `new` with
    /// call 1 accepted. `restored`: continued from a snapshot (its record written).
    /// `moved`: `restored`, then taken over by another node.
    static func inState(_ name: String) -> SessionJournalGate {
        var gate: SessionJournalGate
        switch name {
        case "restored", "moved": gate = SessionJournalGate(SessionJournalState(restoring: SessionSnapshot(identity: identity)))
        default: gate = SessionJournalGate(SessionJournalState(identity: identity))
        }
        if name == "registered" { _ = gate.needsRegistration() }
        if name == "calling" { _ = gate.acceptCalls([1], lastCall: 0, runAhead: false, marksReady: false, answers: [:], localNode: nil, resume: { _ in }) }
        if name == "moved" {
            var log = OutboundLog(maxMessages: 10, maxBytes: 1_000)
            _ = gate.moveAway(log: &log)
        }
        return gate
    }

    /// The state in words: the mode, whether the record is still to be written, the calls open.
    static func describe(_ gate: SessionJournalGate) -> String {
        "\(gate.records.mode)\(gate.records.creationPending ? " creating" : ""), \(gate.records.openCalls.count) open"
    }

    static func late(run: RunChange?) -> LateMessage? {
        SequencedMessage(encoded: ServerMessage.ret(id: 1, result: .success(.string(""))).encoded(seq: 0), seq: 0)
            .map { LateMessage(message: $0, run: run) }
    }

    static func describe(_ admission: SessionJournalGate.LateAdmission) -> String {
        switch admission {
        case .append: "append"
        case .drop(let register): register ? "drop, register" : "drop"
        case .passOn: "pass on"
        }
    }

    static let table: [TransitionRow] = [
        ("new", "calls 1, 2", "wait, register", "journaled creating, 2 open"),
        ("new", "calls 1, 2 running ahead", "open", "journaled creating, 2 open"),
        ("new", "durable 1?", "false", "journaled creating, 0 open"),
        ("new", "tags", "register", "journaled creating, 0 open"),
        ("new", "late ret of call 1", "drop, register", "journaled creating, 0 open"),
        ("new", "late message of no call", "append", "journaled creating, 0 open"),
        ("new", "when created", "kept, register", "journaled creating, 0 open"),
        ("registered", "calls 1, 2", "wait", "journaled creating, 2 open"),
        ("registered", "tags", "-", "journaled creating, 0 open"),
        ("registered", "late ret of call 1", "drop", "journaled creating, 0 open"),
        ("registered", "when created", "kept", "journaled creating, 0 open"),
        ("calling", "calls 1, 2", "wait", "journaled creating, 2 open"),
        ("calling", "durable 1?", "false", "journaled creating, 1 open"),
        ("calling", "late ret of call 1", "append", "journaled creating, 1 open"),
        ("restored", "calls 1, 2", "wait, register", "journaled, 2 open"),
        ("restored", "tags", "register", "journaled, 0 open"),
        ("restored", "when created", "now", "journaled, 0 open"),
        ("moved", "calls 1, 2", "moved", "moved, 0 open"),
        ("moved", "durable 1?", "false", "moved, 0 open"),
        ("moved", "tags", "-", "moved, 0 open"),
        ("moved", "late ret of call 1", "pass on", "moved, 0 open"),
        ("moved", "when created", "now", "moved, 0 open"),
        ("moved", "message after the move, of no call", "passed", "moved, 0 open"),
        ("moved", "final ret after the move, of a call not durable", "not passed", "moved, 0 open"),
    ]

    @Test("every state × event", arguments: Self.table.indices)
    func stateEvent(_ row: Int) throws { try Self.check(row) }

    static func apply(_ event: String, to gate: inout SessionJournalGate) throws -> String {
        switch event {
        case "calls 1, 2", "calls 1, 2 running ahead":
            let accepted = gate.acceptCalls(
                [1, 2], lastCall: 0, runAhead: event.hasSuffix("ahead"), marksReady: false, answers: [:], localNode: nil, resume: { _ in })
            return "\(accepted.gate)\(accepted.register ? ", register" : "")"
        case "durable 1?": return "\(gate.isAcceptanceDurable([1], lastCall: 0))"
        case "tags": return gate.tagsChanged(["room:1"]) ? "register" : "-"
        case "late ret of call 1": return Self.describe(gate.lateArrived(try #require(Self.late(run: RunChange(id: 1, entry: nil))), consumed: false))
        case "late message of no call": return Self.describe(gate.lateArrived(try #require(Self.late(run: nil)), consumed: false))
        case "when created":
            let created = gate.whenCreated({})
            return created.kept ? "kept\(created.register ? ", register" : "")" : "now"
        case "message after the move, of no call":
            return gate.lateAfterMove(ServerMessage.ret(id: 1, result: .success(.string(""))).encoded(seq: 0), run: nil) == nil ? "not passed" : "passed"
        case "final ret after the move, of a call not durable":
            let bytes = ServerMessage.ret(id: 1, result: .success(.string(""))).encoded(seq: 0)
            return gate.lateAfterMove(bytes, run: RunChange(id: 1, entry: nil)) == nil ? "not passed" : "passed"
        default: return "no event \(event)"
        }
    }

    @Test("a snapshot batch carries what the session holds, and the page ready once a dsinit was accepted")
    func snapshot() throws {
        var gate = SessionJournalGate(SessionJournalState(identity: Self.identity))
        _ = gate.acceptCalls([1], lastCall: 0, runAhead: false, marksReady: true, answers: [:], localNode: nil, resume: { _ in })
        var log = OutboundLog(maxMessages: 10, maxBytes: 1_000)
        _ = gate.reconnected(log: &log)  // the next batch is a snapshot
        let parts = SessionJournalGate.SessionParts(log: log, lastCall: 0, held: [], ready: false, nextCallbackId: 5, tags: ["a"])
        let taken = gate.takeBatch(lastSeq: 0)
        var batch = try #require(taken)
        gate.fillSnapshot(&batch, from: parts)
        #expect(batch.isSnapshot)
        #expect(batch.ready == true, "a dsinit accepted counts as ready in the snapshot")
        #expect(batch.lastCall == 1 && batch.nextCallbackId == 5 && batch.tags == ["a"])
        #expect(batch.created?.id == "s")
    }
}

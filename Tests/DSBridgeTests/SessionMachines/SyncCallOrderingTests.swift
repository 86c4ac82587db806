// SPDX-License-Identifier: MIT
import Synchronization
import Testing

@testable import DSBridge

/// ``SyncCallOrdering`` driven directly: every state × event in a table, then the order of
/// resumes. The session's last socket call is 3 throughout.
@Suite("Sync-call ordering machine")
struct SyncCallOrderingTests: TransitionTable {
    static let lastCall: Int64 = 3

    /// A machine in a named state: `empty`; `waiting` (one sync call waits for socket call
    /// 5, key 0); `full` (`maxWaiters` = 2 wait: for 5, key 0, and for 7, key 1).
    static func inState(_ name: String) -> SyncCallOrdering {
        var m = SyncCallOrdering(maxWaiters: 2)
        if name == "waiting" || name == "full" { _ = m.wait(through: 5, lastCall: lastCall, ended: false, resume: { _ in }) }
        if name == "full" { _ = m.wait(through: 7, lastCall: lastCall, ended: false, resume: { _ in }) }
        return m
    }

    /// The state in words: `empty`, or the socket call each waiter waits for.
    static func describe(_ m: SyncCallOrdering) -> String {
        m.waiters.isEmpty ? "empty" : "waiting for " + m.waiters.map { "\($0.after)" }.joined(separator: ",")
    }

    static func describe(_ start: SyncCallOrdering.WaitStart) -> String {
        switch start {
        case .started: "started"
        case .ended: "ended"
        case .full: "full"
        case .waiting(let key): "waiting key \(key)"
        }
    }

    /// Every state × event: what the machine says and where it goes.
    static let table: [TransitionRow] = [
        ("empty", "wait for 2", "started", "empty"),
        ("empty", "wait for 6", "waiting key 0", "waiting for 6"),
        ("empty", "wait, session ended", "ended", "empty"),
        ("empty", "started through 9", "resume 0", "empty"),
        ("empty", "timeout key 0", "-", "empty"),
        ("empty", "session ends", "resume 0", "empty"),
        ("waiting", "wait for 2", "started", "waiting for 5"),
        ("waiting", "wait for 6", "waiting key 1", "waiting for 5,6"),
        ("waiting", "wait, session ended", "ended", "waiting for 5"),
        ("waiting", "started through 4", "resume 0", "waiting for 5"),
        ("waiting", "started through 5", "resume 1", "empty"),
        ("waiting", "timeout key 0", "-", "empty"),
        ("waiting", "timeout key 1", "-", "waiting for 5"),
        ("waiting", "session ends", "resume 1", "empty"),
        ("full", "wait for 2", "started", "waiting for 5,7"),
        ("full", "wait for 6", "full", "waiting for 5,7"),
        ("full", "wait, session ended", "ended", "waiting for 5,7"),
        ("full", "started through 5", "resume 1", "waiting for 7"),
        ("full", "started through 9", "resume 2", "empty"),
        ("full", "timeout key 1", "-", "waiting for 5"),
        ("full", "session ends", "resume 2", "empty"),
    ]

    @Test("every state × event", arguments: Self.table.indices)
    func stateEvent(_ row: Int) throws { try Self.check(row) }

    static func apply(_ event: String, to m: inout SyncCallOrdering) throws -> String {
        switch event {
        case "wait for 2": return Self.describe(m.wait(through: 2, lastCall: Self.lastCall, ended: false, resume: { _ in }))
        case "wait for 6": return Self.describe(m.wait(through: 6, lastCall: Self.lastCall, ended: false, resume: { _ in }))
        case "wait, session ended": return Self.describe(m.wait(through: 6, lastCall: Self.lastCall, ended: true, resume: { _ in }))
        case "started through 4": return "resume \(m.started(through: 4).count)"
        case "started through 5": return "resume \(m.started(through: 5).count)"
        case "started through 9": return "resume \(m.started(through: 9).count)"
        case "timeout key 0":
            m.stopWaiting(key: 0)
            return "-"
        case "timeout key 1":
            m.stopWaiting(key: 1)
            return "-"
        case "session ends": return "resume \(m.removeAll().count)"
        default: return "no event \(event)"
        }
    }

    @Test("started calls resume their own waiters with true, in the order they came; an ending resumes the rest with false")
    func resumes() {
        var m = SyncCallOrdering(maxWaiters: 4)
        let resumed = Mutex<[String]>([])
        for after: Int64 in [6, 4, 8] {
            _ = m.wait(through: after, lastCall: 0, ended: false, resume: { ok in resumed.withLock { $0.append("\(after) \(ok)") } })
        }
        for resume in m.started(through: 6) { resume(true) }
        for resume in m.removeAll() { resume(false) }
        #expect(resumed.withLock { $0 } == ["6 true", "4 true", "8 false"])
    }
}

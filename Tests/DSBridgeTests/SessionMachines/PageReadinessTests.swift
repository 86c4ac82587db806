// SPDX-License-Identifier: MIT
import Synchronization
import Testing

@testable import DSBridge

/// ``PageReadiness`` driven directly: every state × event in a table, then what becoming
/// ready releases, in order.
@Suite("Page readiness machine")
struct PageReadinessTests: TransitionTable {
    static func held(_ callbackId: Int64, bytes: Int = 10) -> PageReadiness.HeldInvoke {
        PageReadiness.HeldInvoke(callbackId: callbackId, invoke: EncodedInvoke(method: "f", args: []), bytes: bytes)
    }

    /// A machine in a named state: `starting` (nothing waits); `holding` (invoke 1 of 10
    /// bytes held and one body waiting); `ready`.
    static func inState(_ name: String) -> PageReadiness {
        var m = PageReadiness()
        if name == "holding" {
            m.hold(held(1))
            _ = m.whenReady(ended: false, {})
        }
        if name == "ready" { _ = m.markReady() }
        return m
    }

    /// The state in words: ready or not, and the invokes held (ids, bytes).
    static func describe(_ m: PageReadiness) -> String {
        (m.isReady ? "ready" : "not ready") + (m.held.isEmpty ? "" : ", holding \(m.held.map(\.callbackId)) \(m.heldBytes) B")
    }

    static let table: [TransitionRow] = [
        ("starting", "hold 2", "-", "not ready, holding [2] 10 B"),
        ("starting", "drop 1", "not held", "not ready"),
        ("starting", "dsinit", "release 0 invokes, 0 bodies", "ready"),
        ("starting", "when ready", "later", "not ready"),
        ("starting", "when ready, ended", "never", "not ready"),
        ("starting", "session ends", "-", "not ready"),
        ("holding", "hold 2", "-", "not ready, holding [1, 2] 20 B"),
        ("holding", "drop 1", "dropped", "not ready"),
        ("holding", "drop 2", "not held", "not ready, holding [1] 10 B"),
        ("holding", "dsinit", "release 1 invokes, 1 bodies", "ready"),
        ("holding", "when ready", "later", "not ready, holding [1] 10 B"),
        ("holding", "when ready, ended", "never", "not ready, holding [1] 10 B"),
        ("holding", "session ends", "-", "not ready"),
        ("ready", "drop 1", "not held", "ready"),
        ("ready", "dsinit", "nothing (ready once)", "ready"),
        ("ready", "when ready", "now", "ready"),
        ("ready", "when ready, ended", "never", "ready"),
        ("ready", "session ends", "-", "ready"),
    ]

    @Test("every state × event", arguments: Self.table.indices)
    func stateEvent(_ row: Int) throws { try Self.check(row) }

    static func apply(_ event: String, to m: inout PageReadiness) throws -> String {
        switch event {
        case "hold 2":
            m.hold(Self.held(2))
            return "-"
        case "drop 1": return m.dropHeld(1) ? "dropped" : "not held"
        case "drop 2": return m.dropHeld(2) ? "dropped" : "not held"
        case "dsinit": return m.markReady().map { "release \($0.invokes.count) invokes, \($0.waiters.count) bodies" } ?? "nothing (ready once)"
        case "when ready": return "\(m.whenReady(ended: false, {}))"
        case "when ready, ended": return "\(m.whenReady(ended: true, {}))"
        case "session ends":
            m.removeAll()
            return "-"
        default: return "no event \(event)"
        }
    }

    @Test("dsinit releases the held invokes in the order made, and the bodies after, in the order given")
    func releaseOrder() {
        var m = PageReadiness()
        let ran = Mutex<[Int]>([])
        for id: Int64 in [3, 1, 2] { m.hold(Self.held(id)) }
        for i in 0..<2 { _ = m.whenReady(ended: false, { ran.withLock { $0.append(i) } }) }
        let release = m.markReady()
        #expect(release?.invokes.map(\.callbackId) == [3, 1, 2])
        for body in release?.waiters ?? [] { body() }
        #expect(ran.withLock { $0 } == [0, 1])
        #expect(m.heldBytes == 0)
    }

    @Test("restored ready with invokes still held, the page is not ready until they are released")
    func restored() {
        #expect(!PageReadiness(restoring: true, held: [Self.held(1, bytes: 7)]).isReady)
        #expect(PageReadiness(restoring: true, held: [Self.held(1, bytes: 7)]).heldBytes == 7)
        #expect(PageReadiness(restoring: true, held: []).isReady)
        #expect(!PageReadiness(restoring: false, held: []).isReady)
    }
}

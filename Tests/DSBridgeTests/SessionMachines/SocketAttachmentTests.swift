// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridge

/// ``SocketAttachment`` driven directly: every state × event in a table. Sockets `a` and
/// `b` are fakes: only their identity matters.
@Suite("Socket attachment machine")
struct SocketAttachmentTests: TransitionTable {
    static let a = FakeSocket()
    static let b = FakeSocket()

    /// A machine in a named state: `new` (never attached); `attached` (`a`, generation 1);
    /// `grace` (`a` attached, then closed: generation 2, no socket).
    static func inState(_ name: String) -> SocketAttachment<FakeSocket> {
        var m = SocketAttachment<FakeSocket>()
        if name != "new" { _ = m.attach(a) }
        if name == "grace" { _ = m.detach(a, graceApplies: true) }
        return m
    }

    static func name(_ socket: FakeSocket?) -> String {
        socket === a ? "a" : socket === b ? "b" : "none"
    }

    /// The state in words: the attached socket and the generation.
    static func describe(_ m: SocketAttachment<FakeSocket>) -> String {
        "\(name(m.connection)) @\(m.generation)"
    }

    static func describe(_ generation: Int?) -> String {
        generation.map { "grace \($0)" } ?? "no grace"
    }

    static let table: [TransitionRow] = [
        ("new", "attach b", "replaces none", "b @1"),
        ("new", "b fails, restoring none", "grace 1", "none @1"),
        ("new", "a closes", "no grace", "none @0"),
        ("new", "expired 0?", "true", "none @0"),
        ("attached", "attach b", "replaces a", "b @2"),
        ("attached", "attach a again", "replaces a", "a @2"),
        ("attached", "b fails, restoring a", "no grace", "a @2"),
        ("attached", "a closes", "grace 2", "none @2"),
        ("attached", "a closes, moved", "no grace", "none @2"),
        ("attached", "b closes", "no grace", "a @1"),
        ("attached", "expired 1?", "false", "a @1"),
        ("grace", "attach b", "replaces none", "b @3"),
        ("grace", "b fails, restoring none", "grace 3", "none @3"),
        ("grace", "a closes", "no grace", "none @2"),
        ("grace", "expired 1?", "false", "none @2"),
        ("grace", "expired 2?", "true", "none @2"),
    ]

    @Test("every state × event", arguments: Self.table.indices)
    func stateEvent(_ row: Int) throws { try Self.check(row) }

    static func apply(_ event: String, to m: inout SocketAttachment<FakeSocket>) throws -> String {
        switch event {
        case "attach b": return "replaces \(Self.name(m.attach(Self.b)))"
        case "attach a again": return "replaces \(Self.name(m.attach(Self.a)))"
        case "b fails, restoring none":
            _ = m.attach(Self.b)
            return Self.describe(m.attachFailed(restoring: nil))
        case "b fails, restoring a":
            let previous = m.attach(Self.b)
            return Self.describe(m.attachFailed(restoring: previous))
        case "a closes": return Self.describe(m.detach(Self.a, graceApplies: true))
        case "a closes, moved": return Self.describe(m.detach(Self.a, graceApplies: false))
        case "b closes": return Self.describe(m.detach(Self.b, graceApplies: true))
        case "expired 0?": return "\(m.isExpired(generation: 0))"
        case "expired 1?": return "\(m.isExpired(generation: 1))"
        case "expired 2?": return "\(m.isExpired(generation: 2))"
        default: return "no event \(event)"
        }
    }
}

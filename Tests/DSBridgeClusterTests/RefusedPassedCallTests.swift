// SPDX-License-Identifier: MIT
import DSBridge
import Logging
import Synchronization
import Testing

@testable import DSBridgeCluster

/// A native call made here whose session moved: its invoke went to the new owner as a call
/// with this node as its origin (docs/CLUSTER.md, late messages). Nothing here connects to
/// Redis: the node is never started, the refusal is handed to it as its subscriber would.
@Suite("Refusals of calls passed on with their session")
struct RefusedPassedCallTests {
    private static func node() throws -> (ClusterNode, Bridge) {
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let parts = try ClusterNode.Parts(nodeID: "n1", redisURL: "redis://127.0.0.1:1", graceMs: 1_000, logger: logger)
        let bridge = Bridge(logger: logger, journal: parts.journal)
        return (ClusterNode(parts: parts, bridge: bridge, address: "127.0.0.1:1", logger: logger), bridge)
    }

    @Test("the new owner's refusal ends the local call at once with sessionEnded, not at its deadline")
    func refusalEndsLocalCall() throws {
        let (node, bridge) = try Self.node()
        let events = Mutex<[NativeCallEvent]>([])
        let registered = bridge.registerNativeCallHandler { e in events.withLock { $0.append(e) } }
        node.receive(NodeMessage.refused(ref: registered.ref, status: 404).encoded())
        #expect(events.withLock { $0 } == [.failed(.sessionEnded)])
    }

    @Test("a refusal for a call that already ended (or was never made here) changes nothing")
    func refusalAfterTheEndIsIgnored() throws {
        let (node, bridge) = try Self.node()
        let events = Mutex<[NativeCallEvent]>([])
        let registered = bridge.registerNativeCallHandler { e in events.withLock { $0.append(e) } }
        bridge.deliverForwardedAnswer(ref: registered.ref, .completed("ok"))
        node.receive(NodeMessage.refused(ref: registered.ref, status: 404).encoded())
        node.receive(NodeMessage.refused(ref: registered.ref + 1_000, status: 404).encoded())
        #expect(events.withLock { $0 } == [.completed("ok")])
    }
}

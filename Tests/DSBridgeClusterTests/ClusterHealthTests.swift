// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis
import Logging
import RedisTestServer
import Testing

@testable import DSBridgeCluster

/// What `/healthz` and `dsbridge_cluster_redis_up` say, against a real Redis on loopback.
@Suite("Cluster health")
struct ClusterHealthTests {
    /// Polls `condition` every 2 ms until it holds (true) or `seconds` have passed (false).
    private func eventually(within seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return condition()
    }

    @Test("a node whose subscriber lost Redis says so until it has subscribed again, though its commands still work")
    func subscriberCountsForHealth() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let parts = try ClusterNode.Parts(nodeID: "n1", redisURL: server.url(), graceMs: 1_000, logger: logger)
        let node = ClusterNode(parts: parts, bridge: Bridge(logger: logger, journal: parts.journal), address: "127.0.0.1:1", logger: logger)
        node.start()
        defer { node.stop() }
        #expect(await eventually(within: 10) { node.healthNote == nil }, "healthy once connected and subscribed")
        // Only the subscriber's connection goes; the command connections stay up.
        _ = try await node.messenger.send([RedisCommand("CLIENT", "KILL", "TYPE", "pubsub")])
        #expect(await eventually(within: 2) { node.healthNote == "redis unavailable" }, "degraded while the subscriber is away")
        #expect(node.messenger.isConnected && node.client.isConnected)
        #expect(await eventually(within: 10) { node.healthNote == nil }, "healthy again once subscribed")
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeServer
import Dispatch
import Synchronization

/// Renders this node's `/metrics` (set once by the server: ``ClusterNode/serveMetrics(_:)``).
final class MetricsSource: Sendable {
    let render: @Sendable () -> [UInt8]?

    init(_ render: @escaping @Sendable () -> [UInt8]?) {
        self.render = render
    }
}

/// The cluster's nodes for the admin page: which are alive, and each one's `/metrics`
/// (PROTOCOL.md 10.2).
extension ClusterNode {
    public func serveMetrics(_ render: @escaping @Sendable () -> [UInt8]?) {
        metricsSource.withLock { $0 = MetricsSource(render) }
    }

    /// This node's `/metrics` text (`nil` without a metrics backend).
    func localMetrics() -> [UInt8]? {
        metricsSource.withLock { $0 }?.render()
    }

    /// This node and the others alive now, by name.
    public func listNodes(answer: @escaping @Sendable (AdminReply) -> Void) {
        readLiveOthers { [self] others in
            guard let others else { return answer(Self.reply(.clusterUnavailable("Redis did not answer"))) }
            let names = ([nodeID] + others).sorted()
            answer(
                AdminReply(
                    status: 200,
                    body: ["nodes": .array(names.map { ["node": .string($0), "self": .bool($0 == nodeID)] })]))
        }
    }

    public func nodeMetrics(node: String, answer: @escaping @Sendable (AdminReply) -> Void) {
        let reply: @Sendable (String?) -> Void = { text in
            guard let text else { return answer(AdminReply(status: 404, body: ["error": .string("metrics are not enabled on node \(node)")])) }
            answer(AdminReply(status: 200, body: ["node": .string(node), "metrics": .string(text)]))
        }
        if node == nodeID {
            return queue.async { [self] in reply(localMetrics().map { String(decoding: $0, as: UTF8.self) }) }
        }
        readLiveOthers { [self] others in
            guard let others else { return answer(Self.reply(.clusterUnavailable("Redis did not answer"))) }
            guard others.contains(node) else { return answer(AdminReply(status: 404, body: ["error": .string("no live node \(node)")])) }
            askMetrics(of: node, reply: reply, answer: answer)
        }
    }

    private func askMetrics(
        of node: String, reply: @escaping @Sendable (String?) -> Void, answer: @escaping @Sendable (AdminReply) -> Void
    ) {
        let req = nextRequest()
        let once = Atomic<Bool>(false)
        let finish: @Sendable (String?) -> Void = { text in
            guard !once.exchange(true, ordering: .acquiringAndReleasing) else { return }
            reply(text)
        }
        pending.withLock { $0.metrics[req] = finish }
        let down: @Sendable () -> Void = { [self] in
            if pending.withLock({ $0.metrics.removeValue(forKey: req) }) != nil {
                // Not `ClusterCallError.nodeDown`: its text speaks of a session waiting for its page.
                answer(AdminReply(status: 503, body: ["error": .string("node \(node) is down: it did not answer")]))
            }
        }
        publish(.metrics(req: req, from: nodeID), to: node) { delivered in if !delivered { down() } }
        queue.asyncAfter(deadline: .now() + .seconds(2)) { down() }
    }
}

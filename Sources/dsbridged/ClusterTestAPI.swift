// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeCluster
import DSBridgeDemo

/// `cluster.*` (with `--demo` and `--redis`): load tests of calls across nodes.
@Exposed
final class ClusterTestAPI: Sendable {
    let node: ClusterNode

    init(node: ClusterNode) {
        self.node = node
    }

    /// Like `test.pushInvokes`, but the calls are made by another node of the cluster (the
    /// first live one in name order): each goes there and back through Redis. Returns the
    /// count asked for, or 0 when no other node is alive.
    @nonblocking
    func pushInvokes(_ request: PushInvokesRequest) throws -> Int {
        guard (0...5_000).contains(request.count) else {
            throw ExposedCallError.badArgument(method: "pushInvokes", expected: "a count from 0 to 5000", detail: "got \(request.count)")
        }
        guard let session = BridgeSession.current, let other = node.anyOtherNode() else { return 0 }
        node.pushInvokes(into: session.id, via: other, method: request.method, args: request.args ?? [], count: request.count)
        return request.count
    }
}

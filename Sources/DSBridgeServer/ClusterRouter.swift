// SPDX-License-Identifier: MIT
import DSBridge

/// An admin answer: an HTTP status and a JSON body (PROTOCOL.md 6).
public struct AdminReply: Sendable, Equatable {
    public var status: Int
    public var body: JSONValue

    public init(status: Int, body: JSONValue) {
        self.status = status
        self.body = body
    }
}

/// How a sync HTTP call forwarded to another node ended.
public enum ForwardedSyncCall: Sendable, Equatable {
    /// The owner answered: the 200 body (`{"code":…,"data":…}`).
    case answered([UInt8])
    /// No node has a session with this token (401).
    case unknownToken
    /// The cluster could not carry the call (Redis unreachable, the owner down or silent): 503.
    case unavailable(String)
}

/// What the server asks of a cluster (docs/CLUSTER.md): the admin API across nodes, and
/// sync HTTP calls for sessions another node holds. A server without one serves its own
/// sessions only. Every method answers once, on any thread, and never blocks its caller.
public protocol ClusterRouter: Sendable {
    /// This node's name (the `node` field of listings).
    var nodeID: String { get }
    /// Said by `/healthz` after `ok` when the cluster is degraded (`redis unavailable`);
    /// `nil` when all is well.
    var healthNote: String? { get }
    /// Whether a drain should wait (until `drainMs`) before the node exits: calls still
    /// running here whose answers must reach pages that moved to other nodes, or writes not
    /// yet done. Read on the network thread: cheap (a flag kept up to date elsewhere).
    var isBusy: Bool { get }
    /// `GET /admin/sessions`: `local` is this node's listing (each entry with `node`); the
    /// answer adds every other node's.
    func listSessions(local: [JSONValue], answer: @escaping @Sendable (AdminReply) -> Void)
    /// `POST /admin/sessions/ID/call` for a session this node does not hold. `request` is
    /// the body as read: a malformed one is 400 once the session is known (404 first).
    func callSession(
        id: String, request: Result<AdminCallRequest, ProtocolViolation>, answer: @escaping @Sendable (AdminReply) -> Void)
    /// `POST /dsbridge/call` with a token no session of this node has: the call runs on the
    /// node that holds the session (its body, `X-DSBridge-After` and `traceparent` as received).
    func forwardSyncCall(
        token: String, body: [UInt8], afterHeader: String?, traceparent: String?,
        answer: @escaping @Sendable (ForwardedSyncCall) -> Void)
    /// Gives the node this node's `/metrics` text, for the other nodes' admin pages.
    func serveMetrics(_ render: @escaping @Sendable () -> [UInt8]?)
    /// `GET /admin/nodes`: 200 `{"nodes":[{"node":NAME,"self":BOOL}]}`, the live nodes.
    func listNodes(answer: @escaping @Sendable (AdminReply) -> Void)
    /// `GET /admin/nodes/NAME/metrics`: 200 `{"node":NAME,"metrics":TEXT}` (that node's
    /// `/metrics`), 404 for a node not alive, 503 when it does not answer.
    func nodeMetrics(node: String, answer: @escaping @Sendable (AdminReply) -> Void)
    /// `GET /admin/sessions/ID/calls` for a session this node does not hold.
    func traceSession(id: String, answer: @escaping @Sendable (AdminReply) -> Void)
    /// `POST /admin/groups/TAG/call`: every tagged session on every node.
    func callGroup(tag: String, request: AdminCallRequest, answer: @escaping @Sendable (AdminReply) -> Void)
}

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

/// What the admin listener asks of a cluster (docs/CLUSTER.md, "Admin API and groups
/// across nodes"); a server without one serves its own sessions only. Every method answers
/// once, on any thread, and never blocks its caller.
public protocol AdminCluster: Sendable {
    /// This node's name (the `node` field of listings).
    var nodeID: String { get }
    /// Said by `/healthz` after `ok` when the cluster is degraded (`redis unavailable`);
    /// `nil` when all is well.
    var healthNote: String? { get }
    /// `GET /admin/sessions`: `local` is this node's listing (each entry with `node`); the
    /// answer adds every other node's.
    func listSessions(local: [JSONValue], answer: @escaping @Sendable (AdminReply) -> Void)
    /// `POST /admin/sessions/ID/call` for a session this node does not hold. `request` is
    /// the body as read: a malformed one is 400 once the session is known (404 first).
    func callSession(
        id: String, request: Result<AdminCallRequest, ProtocolViolation>, answer: @escaping @Sendable (AdminReply) -> Void)
    /// `POST /admin/groups/TAG/call`: every tagged session on every node.
    func callGroup(tag: String, request: AdminCallRequest, answer: @escaping @Sendable (AdminReply) -> Void)
}

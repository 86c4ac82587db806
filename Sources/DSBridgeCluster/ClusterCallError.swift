// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis

/// Why a call into a session through the cluster did not complete.
public enum ClusterCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No node has the session.
    case unknownSession
    /// The session's node is down; the session waits for its page to reconnect elsewhere.
    case nodeDown(String)
    /// The session's node was started again (the process that held the session is gone); the
    /// session waits for its page to reconnect, to any node.
    case awaitingPage(String)
    /// The session's node is draining and its page has gone (PROTOCOL.md 6: 503).
    case draining
    /// The session's node was lost (killed, or started again) after the call reached it and
    /// before it recorded the call in the journal: the page never got it, and no node will
    /// make it (PROTOCOL.md 10.2, text revision 1.15).
    case lostBeforeDelivery(String)
    /// Redis cannot be reached: only this node's own sessions can be called.
    case clusterUnavailable(String)
    /// The page's side: it answered with an error, the session ended, the call timed out
    /// or was too large.
    case call(NativeCallError)

    public var description: String {
        switch self {
        case .unknownSession: return "unknown session"
        case .nodeDown(let node): return "node \(node) is down; the session waits for its page to reconnect to another node"
        case .awaitingPage(let node):
            return "node \(node) was started again since it held the session; the session waits for its page to reconnect"
        case .draining: return "draining"
        case .lostBeforeDelivery(let node):
            return "node \(node) was lost before the call reached the page; the call was not made"
        case .clusterUnavailable(let why): return "cluster unavailable: \(why)"
        case .call(let e): return e.description
        }
    }
}

extension ClusterCallError {
    /// Redis did not give what a cross-node request needed: its client's error, or a reply
    /// of another shape than asked for.
    static func unavailable(_ result: Result<[RedisValue], RedisClientError>) -> ClusterCallError {
        switch result {
        case .failure(let error): return .clusterUnavailable(error.description)
        case .success(let replies): return .clusterUnavailable("Redis answered \(replies.count) replies of an unexpected shape")
        }
    }
}

/// One session's answer to a group call (the status and body PROTOCOL.md 6 gives a session
/// call).
public struct GroupCallResult: Sendable, Equatable {
    public let session: String
    public let node: String
    public let status: Int
    public let body: JSONValue

    public init(session: String, node: String, status: Int, body: JSONValue) {
        self.session = session
        self.node = node
        self.status = status
        self.body = body
    }

    /// As the admin API lists it: `{"session","node","status","body"}`.
    public var json: JSONValue {
        ["session": .string(session), "node": .string(node), "status": .integer(Int64(status)), "body": body]
    }
}

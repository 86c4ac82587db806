// SPDX-License-Identifier: MIT

/// An admin API path (PROTOCOL.md 6), recognised once from its segments; the method is
/// checked against ``allowedMethods`` (another one: 405 with `Allow`). Pure: no I/O.
/// `/healthz` and `/admin/ui` answer for themselves.
enum AdminRoute: Equatable {
    case metrics
    case nodes
    case nodeMetrics(node: String)
    case sessions
    case sessionCall(id: String)
    case sessionCalls(id: String)
    case groupCall(tag: String)

    /// The route of the path `segments` (percent-decoded, empty ones left out), or `nil`
    /// when no admin route has that path (404).
    init?(segments: [Substring]) {
        switch segments.count {
        case 1 where segments[0] == "metrics": self = .metrics
        case 2 where segments[0] == "admin" && segments[1] == "nodes": self = .nodes
        case 2 where segments[0] == "admin" && segments[1] == "sessions": self = .sessions
        case 4 where segments[0] == "admin" && segments[1] == "nodes" && segments[3] == "metrics":
            self = .nodeMetrics(node: String(segments[2]))
        case 4 where segments[0] == "admin" && segments[1] == "sessions" && segments[3] == "call": self = .sessionCall(id: String(segments[2]))
        case 4 where segments[0] == "admin" && segments[1] == "sessions" && segments[3] == "calls": self = .sessionCalls(id: String(segments[2]))
        case 4 where segments[0] == "admin" && segments[1] == "groups" && segments[3] == "call": self = .groupCall(tag: String(segments[2]))
        default: return nil
        }
    }

    /// Whether the route reads (`GET`, and `HEAD`: the same without the body) or acts (`POST`).
    var isRead: Bool {
        switch self {
        case .metrics, .nodes, .nodeMetrics, .sessions, .sessionCalls: return true
        case .sessionCall, .groupCall: return false
        }
    }

    /// The `Allow` header's value for the route.
    var allowedMethods: String { isRead ? "GET, HEAD" : "POST" }

    /// Whether `method` is one the route takes.
    func allows(_ method: HTTPMethod) -> Bool {
        isRead ? method == .get || method == .head : method == .post
    }
}

// SPDX-License-Identifier: MIT

/// The Redis key layout of docs/CLUSTER.md ("Key layout and expiry"). The Lua scripts
/// (``ClusterScripts``) derive the same names from a session id; keep both in step.
enum ClusterKeys {
    /// A node's record (`addr`, `started`, `draining`), with a short expiry: its liveness.
    static func node(_ name: String) -> String { "dsb:node:\(name)" }
    /// Names of the nodes that were seen.
    static let nodes = "dsb:nodes"
    /// Session ids a node owns.
    static func nodeSessions(_ name: String) -> String { "dsb:nodesessions:\(name)" }
    /// A session's record.
    static func session(_ id: String) -> String { "dsb:s:{\(id)}" }
    /// Session ids with a tag.
    static func tag(_ tag: String) -> String { "dsb:tag:\(tag)" }
    /// A node's pub/sub channel.
    static func channel(_ node: String) -> String { "dsb:ch:\(node)" }
}

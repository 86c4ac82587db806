// SPDX-License-Identifier: MIT

/// A node as the runner of calls: `NAME#INCARNATION` (docs/CLUSTER.md). The incarnation is new
/// at each start of the process, so a node killed and started again under its name does not
/// pass for the one that ran the calls.
enum RunnerID {
    /// The node's name and incarnation (`nil` when the id has none).
    static func split(_ id: String) -> (name: String, incarnation: String?) {
        guard let hash = id.lastIndex(of: "#") else { return (id, nil) }
        return (String(id[..<hash]), String(id[id.index(after: hash)...]))
    }
}

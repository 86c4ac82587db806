// SPDX-License-Identifier: MIT
import DSBridge

/// The entries of `GET /admin/sessions` (PROTOCOL.md 6), for a cluster that lists every
/// node's sessions.
public enum AdminListing {
    /// `{"session","connected","ready","origin","since","queued"}` per session, plus
    /// `"node"` when `node` is given.
    public static func sessions(_ sessions: [BridgeSession], node: String?) -> [JSONValue] {
        AdminAPI.sessionList(sessions, node: node)
    }
}

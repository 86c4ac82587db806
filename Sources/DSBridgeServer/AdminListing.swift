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

/// `GET /admin/sessions/ID/calls` (the admin page's session detail), for a cluster that
/// answers it for its own sessions.
public enum AdminTrace {
    /// The session's recent calls (and, from now on, a minute more of recording).
    public static func recentCalls(_ session: BridgeSession, node: String?) -> JSONValue {
        AdminAPI.recentCalls(session, node: node)
    }
}

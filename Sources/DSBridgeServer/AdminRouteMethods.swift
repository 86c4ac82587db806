// SPDX-License-Identifier: MIT

/// The methods each admin API path takes (PROTOCOL.md 6), for the `405` and `Allow` of a
/// request with another method. Pure: the path's segments in, the header's value out.
enum AdminRouteMethods {
    /// `Allow` for the path `segments` (percent-decoded, empty ones left out), or `nil` when
    /// no admin route has that path (a 404). `/healthz` and `/admin/ui` answer for
    /// themselves.
    static func allowed(for segments: [Substring]) -> String? {
        switch segments.count {
        case 1 where segments[0] == "metrics": return "GET, HEAD"
        case 2 where segments[0] == "admin" && (segments[1] == "sessions" || segments[1] == "nodes"): return "GET, HEAD"
        case 4 where segments[0] == "admin" && segments[1] == "nodes" && segments[3] == "metrics": return "GET, HEAD"
        case 4 where segments[0] == "admin" && segments[1] == "sessions" && segments[3] == "calls": return "GET, HEAD"
        case 4 where segments[0] == "admin" && (segments[1] == "sessions" || segments[1] == "groups") && segments[3] == "call":
            return "POST"
        default: return nil
        }
    }
}

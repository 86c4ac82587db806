// SPDX-License-Identifier: MIT

/// Which page origins may open sessions (PROTOCOL.md 1.1): a request without `Origin` is
/// allowed (not a browser); otherwise the origin must be one of the server's own origins or
/// listed explicitly. The `Host` header is never trusted for this.
struct OriginPolicy: Sendable, Equatable {
    /// The server's own origins (`http(s)://HOST:PORT`).
    let own: Set<String>
    /// Origins added with `--allowed-origin`.
    let listed: Set<String>

    /// - Parameter tls: the listener serves TLS: its own origins are `https://` only.
    init(host: String, port: Int, allowed: [String], tls: Bool = false) {
        var hosts: [String]
        switch host {
        case "127.0.0.1", "localhost", "::1", "[::1]", "0.0.0.0", "::":
            // Loopback (and wildcard, where only loopback origins count as own).
            hosts = ["localhost", "127.0.0.1", "[::1]"]
        default:
            hosts = [host.contains(":") ? "[\(host)]" : host]
        }
        var own = Set<String>()
        for h in hosts {
            if !tls { own.insert("http://\(h):\(port)") }
            own.insert("https://\(h):\(port)")
        }
        self.own = own
        self.listed = Set(allowed.map(Self.normalize))
    }

    /// A listed origin as browsers send it (an operator may write `https://App.example/`).
    private static func normalize(_ origin: String) -> String {
        var o = origin.lowercased()
        while o.hasSuffix("/") { o.removeLast() }
        return o
    }

    /// Whether a request with this `Origin` header may proceed. The header's value is
    /// compared exactly, as browsers serialize origins (lower-case scheme and host, no
    /// path): `http://127.0.0.1:8080/` or `HTTP://…` is not an origin.
    func allows(_ origin: String?) -> Bool {
        guard let origin else { return true }
        return own.contains(origin) || listed.contains(origin)
    }

    /// The CORS headers for an allowed origin's request to a POST endpoint, or none for
    /// same-origin and non-browser requests.
    func corsHeaders(for origin: String?) -> [(String, String)] {
        guard let origin, allows(origin) else { return [] }
        return [
            ("Access-Control-Allow-Origin", origin),
            ("Vary", "Origin"),
            ("Access-Control-Allow-Methods", "POST, OPTIONS"),
            ("Access-Control-Allow-Headers", "Content-Type, X-DSBridge-Token, X-DSBridge-After, X-DSBridge-Auth, traceparent"),
            ("Access-Control-Max-Age", "600"),
        ]
    }
}

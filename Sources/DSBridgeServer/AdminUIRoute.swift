// SPDX-License-Identifier: MIT

/// `GET /admin/ui/` (PROTOCOL.md 6): the admin web page, served from ``AdminUIAssets`` with
/// no token, like `/healthz` (the page asks for the token and sends it with each API request).
enum AdminUIRoute {
    /// The page's own path; `/admin/ui` redirects here so its relative links resolve.
    static let root = "/admin/ui/"

    /// Whether `path` is the page's (`/admin/ui` or below).
    static func matches(_ path: String) -> Bool {
        path == "/admin/ui" || path.hasPrefix(root)
    }

    /// The page is a script that only talks to this listener: nothing else may load, frame
    /// or be sent anywhere. (Every admin answer also carries `nosniff` and `no-store`.)
    static let securityHeaders: [(String, String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
                + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
    ]

    /// The answer to `method path` (`query`: the request's query as sent, kept in the
    /// redirect); `enabled`: the admin API is on (`--admin-token` given).
    static func answer(method: HTTPMethod, path: String, query: ArraySlice<UInt8>? = nil, enabled: Bool) -> HTTPAnswer {
        guard method == .get || method == .head else {
            var a = HTTPAnswer.text(405, "only GET and HEAD are served here")
            a.headers.append(("Allow", "GET, HEAD"))
            a.closeAfter = true
            return a
        }
        guard enabled else { return .json(404, ["error": "the admin API is off: start dsbridged with --admin-token"]) }
        if path == "/admin/ui" {
            var a = HTTPAnswer.text(301, "moved to \(root)")
            // The query byte for byte (the request parser let no control byte or space in).
            let location = query.map { root + "?" + String(decoding: $0, as: UTF8.self) } ?? root
            a.headers.append(("Location", location))
            return a
        }
        let name = path == root ? "index.html" : String(path.dropFirst(root.count))
        guard let file = AdminUIAssets.files[name] else { return .json(404, ["error": "not found"]) }
        var a = HTTPAnswer(status: 200, contentType: file.contentType, body: file.bytes)
        a.headers += securityHeaders
        return a
    }
}

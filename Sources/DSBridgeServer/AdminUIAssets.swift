// SPDX-License-Identifier: MIT

/// The admin page's files (`Sources/DSBridgeServer/AdminUI/`), served at `GET /admin/ui/`
/// (PROTOCOL.md 6). SwiftPM compiles them into the binary (`.embedInCode` in Package.swift,
/// as `PackageResources`), so the installed daemon needs no files beside it.
enum AdminUIAssets {
    /// One file of the page as it is served.
    struct File: Sendable {
        /// The `Content-Type` it is served with.
        let contentType: String
        /// Its bytes, exactly as in `AdminUI/`.
        let bytes: [UInt8]

        init(_ name: String, _ bytes: [UInt8]) {
            self.contentType = AdminUIAssets.contentType(of: name)
            self.bytes = bytes
        }
    }

    /// File name → file; every file of `AdminUI/` (a test compares the two).
    static let files: [String: File] = Dictionary(
        uniqueKeysWithValues: [
            ("api.js", PackageResources.api_js),
            ("app.js", PackageResources.app_js),
            ("chart.js", PackageResources.chart_js),
            ("icon.svg", PackageResources.icon_svg),
            ("index.html", PackageResources.index_html),
            ("metrics.js", PackageResources.metrics_js),
            ("sessions.js", PackageResources.sessions_js),
            ("style.css", PackageResources.style_css),
        ].map { ($0.0, File($0.0, $0.1)) })

    /// The content type of a page file, by its extension.
    static func contentType(of name: String) -> String {
        if name.hasSuffix(".html") { return "text/html; charset=utf-8" }
        if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        if name.hasSuffix(".css") { return "text/css; charset=utf-8" }
        if name.hasSuffix(".svg") { return "image/svg+xml" }
        return "application/octet-stream"
    }
}

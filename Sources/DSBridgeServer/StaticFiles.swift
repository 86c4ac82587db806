// SPDX-License-Identifier: MIT
import Foundation

/// Maps request paths to files under the web root (PROTOCOL.md 1.2): no `..`, backslash
/// or NUL; no dotfiles; symlinks must stay inside the root; a directory serves its
/// `index.html`, and a directory without its slash redirects.
struct StaticFiles: Sendable {
    /// The web root, fully resolved.
    let root: String

    enum Resolution: Equatable, Sendable {
        case file(path: String, contentType: String)
        case redirect(location: String)
        case notFound
    }

    init(root: String) {
        let url = URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath()
        self.root = url.path
    }

    /// Resolves a request path (already percent-decoded once).
    func resolve(_ requestPath: String, query: String?) -> Resolution {
        guard requestPath.hasPrefix("/"), !requestPath.contains("\\"), !requestPath.contains("\u{0}") else { return .notFound }
        let segments = requestPath.split(separator: "/", omittingEmptySubsequences: true)
        for s in segments where s == ".." || s == "." || s.hasPrefix(".") { return .notFound }
        var candidate = root
        for s in segments { candidate += "/" + s }
        let resolved = URL(fileURLWithPath: candidate).resolvingSymlinksInPath().path
        guard resolved == root || resolved.hasPrefix(root + "/") else { return .notFound }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory) else { return .notFound }
        if isDirectory.boolValue {
            if !requestPath.hasSuffix("/") {
                return .redirect(location: requestPath + "/" + (query.map { "?" + $0 } ?? ""))
            }
            let index = resolved + "/index.html"
            let indexResolved = URL(fileURLWithPath: index).resolvingSymlinksInPath().path
            guard indexResolved.hasPrefix(root + "/"), FileManager.default.fileExists(atPath: indexResolved) else { return .notFound }
            return .file(path: indexResolved, contentType: Self.contentType(for: indexResolved))
        }
        return .file(path: resolved, contentType: Self.contentType(for: resolved))
    }

    static func contentType(for path: String) -> String {
        let ext = (path as NSString).pathExtension.lowercased()
        switch ext {
        case "html", "htm": return "text/html; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "json", "map": return "application/json"
        case "ts": return "text/plain; charset=utf-8"
        case "txt", "md": return "text/plain; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "ico": return "image/x-icon"
        case "wasm": return "application/wasm"
        case "woff2": return "font/woff2"
        case "woff": return "font/woff"
        case "xml": return "application/xml"
        case "pdf": return "application/pdf"
        default: return "application/octet-stream"
        }
    }
}

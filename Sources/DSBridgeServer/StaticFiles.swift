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

    /// Resolves a request path (already percent-decoded once); `rawTarget`, the target as
    /// sent, makes a redirect's `Location`.
    func resolve(_ requestPath: String, rawTarget: RawRequestTarget? = nil) -> Resolution {
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
                // The path as sent plus `/`, the query byte for byte (PROTOCOL.md 1.2); without
                // the target as sent (a caller of this type alone), the decoded path, encoded.
                return .redirect(
                    location: rawTarget?.directoryLocation ?? RedirectLocation.location(path: requestPath))
            }
            let index = resolved + "/index.html"
            let indexResolved = URL(fileURLWithPath: index).resolvingSymlinksInPath().path
            guard indexResolved.hasPrefix(root + "/"), FileManager.default.fileExists(atPath: indexResolved) else { return .notFound }
            return .file(path: indexResolved, contentType: Self.contentType(for: indexResolved))
        }
        return .file(path: resolved, contentType: Self.contentType(for: resolved))
    }

    /// The answer to a GET or HEAD of `requestPath` (blocking: reads the file; call it off
    /// the network thread).
    func answer(_ requestPath: String, rawTarget: RawRequestTarget? = nil, head: Bool) -> HTTPAnswer {
        switch resolve(requestPath, rawTarget: rawTarget) {
        case .notFound:
            return .text(404, "not found")
        case .redirect(let location):
            var a = HTTPAnswer.text(301, "moved to \(location)")
            a.headers.append(("Location", location))
            return a
        case .file(let path, let contentType):
            guard let body = Self.readRegularFile(path) else { return .text(404, "not found") }
            var a = HTTPAnswer(status: 200, contentType: contentType, body: body)
            a.omitBody = head
            return a
        }
    }

    /// The bytes of `path` if it is a regular file (not a FIFO, socket or device, which
    /// could block a reader forever or never end). Opened non-blocking, then checked with
    /// `fstat` on the open descriptor, so a swap after the check cannot slip through.
    static func readRegularFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buf in read(fd, buf.baseAddress! + done, buf.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            done += n
        }
        return done == bytes.count ? bytes : Array(bytes.prefix(done))
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

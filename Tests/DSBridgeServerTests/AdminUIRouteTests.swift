// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Testing

@testable import DSBridgeServer

/// The admin web page (`GET /admin/ui/`, PROTOCOL.md 6; issue 17, point 1): the embedded copy
/// of admin-ui/, and the page's HTTP rules on a running daemon's admin listener.
@Suite("Admin web page")
struct AdminUIRouteTests {
    private static let adminUIDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/DSBridgeServer/AdminUI")

    @Test("the daemon serves exactly the files of AdminUI/, byte for byte (add a new file to AdminUIAssets.files)")
    func embeddedCopyMatchesFiles() throws {
        var isDirectory: ObjCBool = false
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.adminUIDirectory.path)
            .filter {
                FileManager.default.fileExists(atPath: Self.adminUIDirectory.appendingPathComponent($0).path, isDirectory: &isDirectory)
                    && !isDirectory.boolValue
            }
        #expect(names.count >= 8)
        #expect(Set(names) == Set(AdminUIAssets.files.keys))
        for name in names {
            let bytes = try Data(contentsOf: Self.adminUIDirectory.appendingPathComponent(name))
            #expect(AdminUIAssets.files[name].map { Data($0.bytes) } == bytes, "\(name) differs from its embedded copy")
        }
    }

    @Test("each kind of page file is served with its content type")
    func contentTypes() {
        #expect(AdminUIAssets.contentType(of: "index.html") == "text/html; charset=utf-8")
        #expect(AdminUIAssets.contentType(of: "app.js") == "text/javascript; charset=utf-8")
        #expect(AdminUIAssets.contentType(of: "style.css") == "text/css; charset=utf-8")
        #expect(AdminUIAssets.contentType(of: "icon.svg") == "image/svg+xml")
        #expect(AdminUIAssets.contentType(of: "notes.txt") == "application/octet-stream")
    }

    @Test("GET /admin/ui/ needs no token and answers the page with headers that keep it to itself")
    func servesPage() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let r = try TestHTTP.request(port: server.adminPort, path: "/admin/ui/")
        #expect(r.status == 200)
        #expect(r.headers["content-type"] == "text/html; charset=utf-8")
        #expect(r.body == AdminUIAssets.files["index.html"]?.bytes)
        #expect(r.headers["content-security-policy"]?.contains("default-src 'none'") == true)
        #expect(r.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(r.headers["x-frame-options"] == "DENY")
        #expect(r.headers["referrer-policy"] == "no-referrer")
        let script = try TestHTTP.request(port: server.adminPort, path: "/admin/ui/app.js")
        #expect(script.status == 200)
        #expect(script.headers["content-type"] == "text/javascript; charset=utf-8")
    }

    @Test("HEAD answers the headers of GET, with no body")
    func head() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let r = try TestHTTP.request(port: server.adminPort, method: "HEAD", path: "/admin/ui/style.css")
        #expect(r.status == 200)
        #expect(r.headers["content-length"] == String(AdminUIAssets.files["style.css"]?.bytes.count ?? -1))
        #expect(r.body.isEmpty)
    }

    @Test("/admin/ui redirects to /admin/ui/, keeping the query")
    func redirects() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let r = try TestHTTP.request(port: server.adminPort, path: "/admin/ui?view=calls")
        #expect(r.status == 301)
        #expect(r.headers["location"] == "/admin/ui/?view=calls")
    }

    @Test("other methods: 405 with Allow; unknown files: 404 JSON; the API behind it still needs the token")
    func refusals() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let post = try TestHTTP.request(port: server.adminPort, method: "POST", path: "/admin/ui/", body: [])
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD")
        let missing = try TestHTTP.request(port: server.adminPort, path: "/admin/ui/secrets.txt")
        #expect(missing.status == 404)
        #expect(try JSONParser.parse(missing.text) == ["error": "not found"])
        #expect(try TestHTTP.request(port: server.adminPort, path: "/admin/sessions").status == 401)
        #expect(try TestHTTP.request(port: server.adminPort, path: "/admin/ui/../sessions").status != 200)
    }

    @Test("the redirect keeps the query as sent, byte for byte")
    func redirectKeepsQueryAsSent() {
        let query = Array("view=calls&s=%73%20x".utf8)[...]
        let a = AdminUIRoute.answer(method: .get, path: "/admin/ui", query: query, enabled: true)
        #expect(a.status == 301)
        #expect(a.headers.first { $0.0 == "Location" }?.1 == "/admin/ui/?view=calls&s=%73%20x")
        let bare = AdminUIRoute.answer(method: .head, path: "/admin/ui", enabled: true)
        #expect(bare.headers.first { $0.0 == "Location" }?.1 == "/admin/ui/")
    }

    @Test("without --admin-token the page is off: 404 naming the option")
    func offWithoutToken() {
        let a = AdminUIRoute.answer(method: .get, path: "/admin/ui/", enabled: false)
        #expect(a.status == 404)
        #expect(String(decoding: a.body, as: UTF8.self).contains("--admin-token"))
    }
}

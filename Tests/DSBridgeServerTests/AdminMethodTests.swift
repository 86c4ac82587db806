// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Testing

/// The admin API's answers by method (PROTOCOL.md 6): HEAD as GET without a body, another
/// method on a known path 405 with `Allow`.
@Suite("Admin API methods")
struct AdminMethodTests {
    private func request(_ server: RunningServer, _ method: String, _ path: String) throws -> TestHTTP.Response {
        try TestHTTP.request(
            port: server.adminPort, method: method, path: path, headers: ["Authorization": "Bearer \(RunningServer.adminToken)"],
            body: nil)
    }

    @Test("HEAD of a GET route answers its status and headers without a body")
    func headIsGetWithoutBody() throws {
        let server = try RunningServer()
        defer { server.stop() }
        _ = try server.openSession()
        // (This test server has no metrics: its /metrics is 404 for both.)
        for (path, status) in [("/admin/sessions", 200), ("/admin/nodes", 200), ("/admin/sessions/abc/calls", 404), ("/metrics", 404)] {
            let get = try request(server, "GET", path)
            let head = try request(server, "HEAD", path)
            #expect(get.status == status && head.status == status, "\(path): \(get.status) / \(head.status)")
            #expect(!get.body.isEmpty && head.body.isEmpty, "\(path)")
            #expect(head.headers["content-type"] == get.headers["content-type"], "\(path)")
        }
    }

    @Test(
        "another method on a known path is 405 with Allow; an unknown path stays 404",
        arguments: [
            ("PUT", "/admin/sessions", 405, "GET, HEAD"), ("DELETE", "/metrics", 405, "GET, HEAD"),
            ("GET", "/admin/sessions/abc/call", 405, "POST"), ("GET", "/admin/groups/room:7/call", 405, "POST"),
            ("POST", "/admin/sessions/abc/calls", 405, "GET, HEAD"), ("GET", "/admin/nope", 404, nil),
        ] as [(String, String, Int, String?)])
    func wrongMethod(method: String, path: String, status: Int, allow: String?) throws {
        let server = try RunningServer()
        defer { server.stop() }
        let r = try request(server, method, path)
        #expect(r.status == status, "\(r.status) \(r.text)")
        #expect(r.headers["allow"] == allow)
    }
}

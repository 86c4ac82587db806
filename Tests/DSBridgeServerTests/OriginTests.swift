// SPDX-License-Identifier: MIT
import DSBridge
import Testing

@Suite("Origins and CORS (PROTOCOL.md 1.1)")
struct OriginTests {
    @Test("the server's own origins and requests without Origin may open sockets; others get 403")
    func webSocketOrigins() throws {
        let server = try RunningServer()
        defer { server.stop() }
        for own in ["http://127.0.0.1:\(server.port)", "http://localhost:\(server.port)", "http://[::1]:\(server.port)"] {
            let ws = try TestWebSocket(port: server.port, origin: own)
            #expect(try ws.hello()["t"] == "welcome")
        }
        #expect(try TestWebSocket(port: server.port).hello()["t"] == "welcome")
        for foreign in ["http://evil.example", "http://127.0.0.1:\(server.port + 1)", "null"] {
            #expect(throws: TestClientError.self) { try TestWebSocket(port: server.port, origin: foreign) }
        }
    }

    @Test("a listed origin may open sockets and gets CORS answers on the POST endpoints")
    func listedOrigin() throws {
        let server = try RunningServer(allowedOrigins: ["https://app.example"])
        defer { server.stop() }
        #expect(try TestWebSocket(port: server.port, origin: "https://app.example").hello()["t"] == "welcome")
        let session = try TestHTTP.request(
            port: server.port, method: "POST", path: "/dsbridge/session",
            headers: ["Origin": "https://app.example"], body: [])
        #expect(session.status == 200)
        #expect(session.headers["access-control-allow-origin"] == "https://app.example")
        #expect(session.headers["vary"] == "Origin")
        let preflight = try TestHTTP.request(
            port: server.port, method: "OPTIONS", path: "/dsbridge/call",
            headers: ["Origin": "https://app.example"])
        #expect(preflight.status == 204)
        #expect(preflight.headers["access-control-allow-headers"]?.contains("X-DSBridge-Token") == true)
        #expect(preflight.headers["access-control-max-age"] == "600")
        let refused = try TestHTTP.request(
            port: server.port, method: "OPTIONS", path: "/dsbridge/call",
            headers: ["Origin": "https://other.example"])
        #expect(refused.status == 403)
    }

    @Test("with --auth-token, POST /dsbridge/session needs X-DSBridge-Auth (401 without) and hello needs auth (1008)")
    func sharedSecret() throws {
        let server = try RunningServer { $0.authToken = "s3cret" }
        defer { server.stop() }
        #expect(try TestHTTP.request(port: server.port, method: "POST", path: "/dsbridge/session", body: []).status == 401)
        #expect(try TestHTTP.request(port: server.port, method: "POST", path: "/dsbridge/session", headers: ["X-DSBridge-Auth": "x"], body: []).status == 401)
        #expect(
            try TestHTTP.request(port: server.port, method: "POST", path: "/dsbridge/session", headers: ["X-DSBridge-Auth": "s3cret"], body: []).status == 200)
        let ws = try TestWebSocket(port: server.port)
        try ws.send(["t": "hello", "v": 1])
        #expect(try ws.closeCode() == 1008)
        let ok = try TestWebSocket(port: server.port)
        try ok.send(["t": "hello", "v": 1, "auth": "s3cret"])
        #expect(try ok.nextMessage()["t"] == "welcome")
    }

    @Test("a disallowed origin gets 403 on both POST endpoints")
    func foreignPosts() throws {
        let server = try RunningServer()
        defer { server.stop() }
        for path in ["/dsbridge/session", "/dsbridge/call"] {
            let r = try TestHTTP.request(port: server.port, method: "POST", path: path, headers: ["Origin": "http://evil.example"], body: [])
            #expect(r.status == 403, "\(path)")
        }
    }
}

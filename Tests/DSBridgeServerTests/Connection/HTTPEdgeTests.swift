// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Testing

/// The HTTP edge of PROTOCOL.md 1, 1.1, 2 and 4, over real sockets.
@Suite("HTTP edges (PROTOCOL.md 1, 1.1, 4)")
struct HTTPEdgeTests {
    @Test("Origin is compared exactly: a trailing slash or an upper-case scheme is not an origin (403)")
    func originExact() throws {
        let server = try RunningServer(allowedOrigins: ["https://app.example"])
        defer { server.stop() }
        for bad in ["http://127.0.0.1:\(server.port)/", "HTTP://127.0.0.1:\(server.port)", "https://app.example/", "https://APP.example"] {
            #expect(throws: TestClientError.self, "\(bad)") { try TestWebSocket(port: server.port, origin: bad) }
            let r = try TestHTTP.request(port: server.port, method: "POST", path: "/dsbridge/session", headers: ["Origin": bad], body: [])
            #expect(r.status == 403, "\(bad)")
        }
        #expect(try TestWebSocket(port: server.port, origin: "http://127.0.0.1:\(server.port)").hello()["t"] == "welcome")
    }

    @Test(
        "no answer to HEAD has a body: 405, 404, 301 and 400 included",
        arguments: [
            ("/dsbridge/call", 405), ("/dsbridge/session", 405), ("/missing.html", 404), ("/sub", 301), ("/dsbridge", 400), ("/app.js", 200),
        ])
    func headHasNoBody(path: String, status: Int) throws {
        let server = try RunningServer()
        defer { server.stop() }
        let r = try TestHTTP.request(port: server.port, method: "HEAD", path: path)
        #expect(r.status == status)
        #expect(r.body.isEmpty, "\(r.text)")
    }

    @Test(
        "a static path with a .. segment, a backslash or a NUL once decoded gets 404 (never the file, a redirect or a dropped connection)",
        arguments: [
            "/sub/..", "/sub/%2e%2e", "/sub/../sub/site.css", "/sub/%2E%2E/index.html", "/..%2fapp.js", "/index.html%00", "/sub%00/",
            "/sub%5csite.css", "/sub\\site.css", "/sub/./../app.js",
        ])
    func refusedStaticPaths(path: String) throws {
        let server = try RunningServer()
        defer { server.stop() }
        let r = try TestHTTP.request(port: server.port, path: path)
        #expect(r.status == 404)
        #expect(r.text == "not found\n")
        #expect(r.headers["x-content-type-options"] == "nosniff")
        let head = try TestHTTP.request(port: server.port, method: "HEAD", path: path)
        #expect(head.status == 404)
        #expect(head.body.isEmpty)
    }

    @Test("every other request is served as sent: files, keep-alive, upgrades, a request line sent in pieces")
    func gatePassesTheRest() throws {
        let server = try RunningServer()
        defer { server.stop() }
        #expect(try TestHTTP.request(port: server.port, path: "/sub/site.css").text == "body{}")
        #expect(try TestHTTP.request(port: server.port, path: "/%61pp.js").text == "window.x = 1;")
        // Two requests on one connection, the first line split across writes.
        let socket = try TestSocket(port: server.port)
        try socket.write(Array("GET /ap".utf8))
        usleep(50_000)
        try socket.write(Array("p.js HTTP/1.1\r\nHost: x\r\n\r\nGET /sub/site.css HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        let both = String(decoding: try socket.readToEnd(), as: UTF8.self)
        #expect(both.components(separatedBy: "HTTP/1.1 200").count == 3, "\(both)")
        #expect(try server.openSession().1["t"] == "welcome")
    }

    @Test(
        "/dir redirects to /dir/ with the query kept byte for byte, never a raw space or CR LF in Location",
        arguments: [
            ("/sub?a=1&b=%20c", "/sub/?a=1&b=%20c"),
            ("/sub?x=1", "/sub/?x=1"),
            ("/%73ub", "/%73ub/"),
            ("//sub", "/sub/"),  // never a protocol-relative Location (an open redirect)
            ("/%73ub?q=%41+b;c", "/%73ub/?q=%41+b;c"),
            // As sent: still percent-encoded, so it never splits the answer.
            ("/sub?a=%0d%0aSet-Cookie:%20x=1", "/sub/?a=%0d%0aSet-Cookie:%20x=1"),
        ])
    func redirectKeepsQuery(target: String, location: String) throws {
        let server = try RunningServer()
        defer { server.stop() }
        let r = try TestHTTP.request(port: server.port, path: target)
        #expect(r.status == 301)
        #expect(r.headers["location"] == location)
        #expect(r.headers["set-cookie"] == nil)
    }

    @Test("CORS headers go on every answer to an allowed cross-origin request, 405 included")
    func corsOnErrors() throws {
        let server = try RunningServer(allowedOrigins: ["https://app.example"])
        defer { server.stop() }
        let origin = ["Origin": "https://app.example"]
        let answers = [
            try TestHTTP.request(port: server.port, method: "PUT", path: "/dsbridge/call", headers: origin, body: []),
            try TestHTTP.request(port: server.port, method: "GET", path: "/dsbridge/session", headers: origin),
            try TestHTTP.request(port: server.port, method: "POST", path: "/dsbridge/call", headers: origin, body: []),
        ]
        #expect(answers.map(\.status) == [405, 405, 401])
        for a in answers {
            #expect(a.headers["access-control-allow-origin"] == "https://app.example")
            #expect(a.headers["vary"] == "Origin")
        }
    }

    @Test("an upgrade whose subprotocol list lacks dsbridge.v1 gets HTTP 400", arguments: [["dsbridge.v2"], ["chat", "superchat"]])
    func upgradeWithoutSubprotocol(protocols: [String]) throws {
        let server = try RunningServer()
        defer { server.stop() }
        do {
            _ = try TestWebSocket(port: server.port, protocols: protocols)
            Issue.record("upgrade accepted")
        } catch TestClientError.badHandshake(let line) {
            #expect(line.split(separator: " ").dropFirst().first == "400", "\(line)")
        }
    }

    /// A client that writes its whole request, body included, before it reads.
    private func wholeRequest(_ port: Int, _ method: String, _ path: String, headers: [String: String] = [:], bodyBytes: Int) throws -> TestHTTP.Response {
        try TestHTTP.request(port: port, method: method, path: path, headers: headers, body: [UInt8](repeating: 0x61, count: bodyBytes))
    }

    @Test("early answers reach a client still sending a large body: 405, 403, 401, then 413, with Connection: close")
    func earlyAnswersArrive() throws {
        let server = try RunningServer { $0.maxMessageBytes = 64 << 10 }
        defer { server.stop() }
        let (_, welcome) = try server.openSession()
        let token = try #require(welcome["token"]?.stringValue)
        let big = 4 << 20
        let put = try wholeRequest(server.port, "PUT", "/dsbridge/call", headers: ["X-DSBridge-Token": token], bodyBytes: big)
        #expect(put.status == 405)
        let foreign = try wholeRequest(
            server.port, "POST", "/dsbridge/call", headers: ["Origin": "https://evil.example", "X-DSBridge-Token": token], bodyBytes: big)
        #expect(foreign.status == 403)
        let noToken = try wholeRequest(server.port, "POST", "/dsbridge/call", bodyBytes: big)
        #expect(noToken.status == 401)
        let tooLarge = try wholeRequest(server.port, "POST", "/dsbridge/call", headers: ["X-DSBridge-Token": token], bodyBytes: big)
        #expect(tooLarge.status == 413)
        #expect(tooLarge.headers["connection"]?.lowercased() == "close")
        let session = try wholeRequest(server.port, "POST", "/dsbridge/session", bodyBytes: big)
        #expect(session.status == 413)
    }

    @Test("a body that does not arrive within --body-timeout-ms gets 408 and the connection closes, also behind a request served on the same connection")
    func bodyTimeout() throws {
        let server = try RunningServer(configureServer: { $0.bodyTimeoutMs = 300 })
        defer { server.stop() }
        let (_, welcome) = try server.openSession()
        let token = try #require(welcome["token"]?.stringValue)
        let body = Array(#"{"method":"testSyn","arg":{"data":"x"}}"#.utf8)
        func head(_ length: Int) -> [UInt8] {
            Array("POST /dsbridge/call HTTP/1.1\r\nHost: t\r\nX-DSBridge-Token: \(token)\r\nContent-Length: \(length)\r\n\r\n".utf8)
        }
        let socket = try TestSocket(port: server.port)
        // A whole request, then one whose body stops short, on the same kept-alive connection.
        try socket.write(head(body.count) + body)
        #expect(try socket.readAnswer().head.hasPrefix("HTTP/1.1 200"))
        let started = Date()
        try socket.write(head(body.count) + body.prefix(10))
        let second = String(decoding: try socket.readToEnd(), as: UTF8.self)
        #expect(second.hasPrefix("HTTP/1.1 408"), "got \(second.prefix(80))")
        #expect(second.lowercased().contains("connection: close"))
        #expect(Date().timeIntervalSince(started) >= 0.25)
        // A body sent in two parts within the limit is served.
        let split = try TestSocket(port: server.port)
        try split.write(head(body.count) + body.prefix(10))
        Thread.sleep(forTimeInterval: 0.1)
        try split.write(Array(body.dropFirst(10)))
        let served = try split.read(until: Array("\r\n\r\n".utf8))
        #expect(String(decoding: served, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
    }

    @Test("admin request bodies are bounded by replayMaxBytes, not maxMessageBytes (413 {\"error\":\"too large\"})")
    func adminBodyBound() throws {
        let server = try RunningServer {
            $0.maxMessageBytes = 1024; $0.replayMaxBytes = 64 << 10
        }
        defer { server.stop() }
        let (_, welcome) = try server.openSession()
        let id = try #require(welcome["session"]?.stringValue)
        func call(_ padding: Int) throws -> TestHTTP.Response {
            let body: JSONValue = ["method": "addValue", "args": [.string(String(repeating: "x", count: padding))], "timeoutMs": 100]
            return try TestHTTP.request(
                port: server.adminPort, method: "POST", path: "/admin/sessions/\(id)/call",
                headers: ["Authorization": "Bearer \(RunningServer.adminToken)"], body: Array(body.description.utf8))
        }
        #expect(try call(8 << 10).status == 504)  // over maxMessageBytes, under replayMaxBytes: the page never got ready
        let refused = try call(128 << 10)
        #expect(refused.status == 413)
        #expect(try JSONParser.parse(refused.text) == ["error": "too large"])
    }
}

@Suite("Close frames")
struct CloseFrameTests {
    @Test("a long close reason is cut between characters: valid UTF-8, at most 123 bytes")
    func reasonCutOnCharacterBoundary() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.port)
        try ws.send("{\"t\":\"\(String(repeating: "😀", count: 40))\",\"v\":1}")
        guard case .close(let code, let reason) = try ws.nextEvent() else { Issue.record("no close"); return }
        #expect(code == 4000)
        #expect(!reason.contains("\u{FFFD}"), "\(reason)")
        #expect(reason.utf8.count <= 123)
        #expect(reason.hasPrefix("unknown t"), "\(reason)")
    }

    @Test("CloseReason.clipped keeps whole characters within the byte bound")
    func clipped() {
        #expect(CloseReason.clipped("short") == "short")
        let emoji = String(repeating: "😀", count: 40)
        let cut = CloseReason.clipped("a" + emoji)
        #expect(cut.utf8.count == 121)
        #expect(cut == "a" + String(repeating: "😀", count: 30))
    }
}

/// Requests after the first of a kept-alive connection are read at once, not peeked at
/// (issue 21): pipelined requests, heads in pieces and a WebSocket upgrade among them.
@Suite("Kept-alive connections: the requests after the first")
struct KeptAliveRequestTests {
    private func get(_ path: String, close: Bool = false) -> String {
        "GET \(path) HTTP/1.1\r\nHost: x\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n"
    }

    @Test("pipelined requests sent in one write are each answered once, in order")
    func pipelinedInOrder() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let socket = try TestSocket(port: server.port)
        let paths = ["/app.js", "/sub/site.css", "/app.js", "/missing", "/sub/site.css"]
        let requests = paths.enumerated().map { get($1, close: $0 == paths.count - 1) }.joined()
        try socket.write(Array(requests.utf8))
        var bodies: [String] = []
        for _ in paths { bodies.append(try socket.readAnswer().body) }
        #expect(bodies == ["window.x = 1;", "body{}", "window.x = 1;", "not found\n", "body{}"])
        #expect(try socket.readToEnd().isEmpty)
    }

    @Test("a later head sent in pieces, and sync calls on one connection, are answered")
    func laterHeadInPieces() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (page, welcome) = try server.openSession()
        _ = page
        guard case .string(let token)? = welcome["token"] else { throw TestClientError.badHandshake("no token") }
        let socket = try TestSocket(port: server.port)
        try socket.write(Array(get("/app.js").utf8))
        #expect(try socket.readAnswer().body == "window.x = 1;")
        try socket.write(Array("GET /sub/si".utf8))
        usleep(30_000)
        try socket.write(Array("te.css HTTP/1.1\r\nHo".utf8))
        usleep(30_000)
        try socket.write(Array("st: x\r\n\r\n".utf8))
        #expect(try socket.readAnswer().body == "body{}")
        let body = #"{"method":"echo.syn","arg":{"data":"kept"}}"#
        let call = "POST /dsbridge/call HTTP/1.1\r\nHost: x\r\nX-DSBridge-Token: \(token)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        // Two calls in one write, then one more with its body in a second write.
        try socket.write(Array((call + call).utf8))
        #expect(try socket.readAnswer().body.contains(#""data":"kept""#))
        #expect(try socket.readAnswer().body.contains(#""data":"kept""#))
        let split = call.utf8.count - 10
        try socket.write(Array(call.utf8.prefix(split)))
        usleep(30_000)
        try socket.write(Array(call.utf8.dropFirst(split)))
        let last = try socket.readAnswer()
        #expect(last.head.hasPrefix("HTTP/1.1 200"), "\(last.head)")
        #expect(last.body.contains(#""data":"kept""#), "\(last.body)")
    }

    @Test("a WebSocket upgrade after a kept-alive request, or pipelined behind one, opens a session")
    func upgradeAfterRequest() throws {
        let server = try RunningServer()
        defer { server.stop() }
        // After the answer was read.
        let first = try TestSocket(port: server.port)
        try first.write(Array(get("/app.js").utf8))
        #expect(try first.readAnswer().body == "window.x = 1;")
        let page = try TestWebSocket(socket: first, port: server.port)
        #expect(try page.hello()["t"] == "welcome")
        // Pipelined: the request and the upgrade in one write (the upgrade's head is read
        // with the request's and served once the request is answered).
        let second = try TestSocket(port: server.port)
        try second.write(Array((get("/sub/site.css") + get("/app.js")).utf8))
        #expect(try second.readAnswer().body == "body{}")
        #expect(try second.readAnswer().body == "window.x = 1;")
        let pipelined = try TestWebSocket(socket: second, port: server.port)
        #expect(try pipelined.hello()["t"] == "welcome")
        // An upgrade after a request from an origin that is not allowed: 403, closed.
        let third = try TestSocket(port: server.port)
        try third.write(Array(get("/app.js").utf8))
        _ = try third.readAnswer()
        #expect(throws: TestClientError.self) { try TestWebSocket(socket: third, port: server.port, origin: "https://not-allowed.example") }
    }
}

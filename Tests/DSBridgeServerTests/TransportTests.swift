// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Synchronization
import Testing

@Suite("Transport: frames, limits, closes, static files, admin")
struct TransportTests {
    @Test("welcome carries session, token, lastCall, resumed and heartbeat")
    func welcome() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (_, welcome) = try server.openSession()
        #expect(welcome["t"] == "welcome")
        #expect(welcome["lastCall"] == 0)
        #expect(welcome["resumed"] == false)
        #expect(welcome["heartbeat"] == 20000)
        let token = try #require(welcome["token"]?.stringValue)
        #expect(token.count >= 22)
        #expect(welcome["session"]?.stringValue?.isEmpty == false)
    }

    @Test("a message above maxMessageBytes closes with 1009, also when fragmented")
    func tooBig() throws {
        let server = try RunningServer { $0.maxMessageBytes = 1000 }
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        try ws.send(callMessage(1, "echo.syn", .string(String(repeating: "x", count: 2000))))
        #expect(try ws.closeCode() == 1009)
        let (ws2, _) = try server.openSession()
        try ws2.sendFrame(opcode: 1, Array(String(repeating: "y", count: 600).utf8), fin: false)
        try ws2.sendFrame(opcode: 0, Array(String(repeating: "y", count: 600).utf8), fin: true)
        #expect(try ws2.closeCode() == 1009)
    }

    @Test("a fragmented message within the limit is reassembled")
    func fragments() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        let text = Array(callMessage(1, "testSyn", "frag").description.utf8)
        try ws.sendFrame(opcode: 1, Array(text[..<10]), fin: false)
        try ws.sendFrame(opcode: 0, Array(text[10..<20]), fin: false)
        try ws.sendFrame(opcode: 0, Array(text[20...]), fin: true)
        #expect(try ws.nextMessage()["data"] == "frag[ syn call]")
    }

    @Test("a binary frame closes 1003, invalid UTF-8 closes 1007")
    func binaryAndUTF8() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        try ws.sendFrame(opcode: 2, [1, 2, 3])
        #expect(try ws.closeCode() == 1003)
        let (ws2, _) = try server.openSession()
        try ws2.sendFrame(opcode: 1, [0x22, 0xC3, 0x28, 0x22])
        #expect(try ws2.closeCode() == 1007)
    }

    @Test(
        "protocol errors close 4000 and no message of the frame runs",
        arguments: [
            "not json", "5", "\"x\"", "{\"t\":\"nope\"}", "{}", "[1]", "{\"t\":\"call\",\"id\":0,\"method\":\"testSyn\"}",
            "{\"t\":\"call\",\"id\":1}", "{\"t\":\"call\",\"id\":\"1\",\"method\":\"testSyn\"}", "{\"t\":\"hello\",\"v\":1}",
            "{\"t\":\"ack\",\"seq\":\"x\"}", "[{\"t\":\"call\",\"id\":1,\"method\":\"testSyn\",\"arg\":{\"data\":\"a\"}},{\"t\":\"bad\"}]",
        ])
    func protocolErrors(frame: String) throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (ws, welcome) = try server.openSession()
        let token = try #require(welcome["token"]?.stringValue)
        try ws.send(frame)
        let (seen, code) = try ws.messagesUntilClose()
        #expect(code == 4000)
        #expect(seen.isEmpty, "the refused frame produced \(seen)")
        // The session is kept (PROTOCOL.md 2.5): resuming it replays whatever the server sent
        // since the welcome. A message of the frame that ran would have left its `ret` there.
        let again = try TestWebSocket(port: server.port)
        let resumed = try again.hello(token: token)
        #expect(resumed["resumed"] == true)
        try again.send(callMessage(7, "testSyn", "after"))
        let next = try again.nextMessage()
        #expect(next["t"] == "ret" && next["id"] == 7, "the first message after resuming is \(next), not the ret of call 7")
    }

    @Test("the first frame must start with hello; [hello, call, bad] gets no welcome")
    func firstFrame() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.port)
        try ws.send(callMessage(1, "testSyn", "a"))
        #expect(try ws.closeCode() == 4000)
        let ws2 = try TestWebSocket(port: server.port)
        try ws2.send("[{\"t\":\"hello\",\"v\":1},{\"t\":\"call\",\"id\":1,\"method\":\"testSyn\"},{\"t\":\"zzz\"}]")
        #expect(try ws2.closeCode() == 4000)
        let ws3 = try TestWebSocket(port: server.port)
        try ws3.send("{\"t\":\"hello\",\"v\":2}")
        #expect(try ws3.closeCode() == 4000)
        let ws4 = try TestWebSocket(port: server.port)
        try ws4.send("{\"t\":\"hello\",\"v\":1,\"token\":\"no-such-token\"}")
        #expect(try ws4.closeCode() == 4004)
    }

    @Test("JSON nested deeper than maxDepth closes 4000")
    func depth() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        let deep = String(repeating: "[", count: 127) + String(repeating: "]", count: 127)
        try ws.send("{\"t\":\"call\",\"id\":1,\"method\":\"echo.syn\",\"arg\":{\"data\":\(deep)}}")
        #expect(try ws.closeCode() == 4000)
        let (ws2, _) = try server.openSession()
        let ok = String(repeating: "[", count: 120) + String(repeating: "]", count: 120)
        try ws2.send("{\"t\":\"call\",\"id\":1,\"method\":\"echo.syn\",\"arg\":{\"data\":\(ok)}}")
        #expect(try ws2.nextMessage()["code"] == 0)
    }

    @Test("a socket that never says hello is closed 4000 after helloTimeoutMs")
    func helloTimeout() throws {
        let server = try RunningServer { $0.helloTimeoutMs = 300 }
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.port)
        #expect(try ws.closeCode() == 4000)
    }

    @Test("an upgrade without dsbridge.v1 or on another path is refused")
    func upgradeRefused() throws {
        let server = try RunningServer()
        defer { server.stop() }
        #expect(throws: TestClientError.self) { try TestWebSocket(port: server.port, protocols: nil) }
        #expect(throws: TestClientError.self) { try TestWebSocket(port: server.port, protocols: ["other"]) }
        #expect(throws: TestClientError.self) { try TestWebSocket(port: server.port, path: "/elsewhere") }
    }

    @Test("_dsb.closePage runs the dismissal handler, answers, ends the session and closes 1000")
    func closePage() throws {
        let dismissed = Atomic<Int>(0)
        let server = try RunningServer(dismissal: { _ in dismissed.add(1, ordering: .relaxed) })
        defer { server.stop() }
        let (ws, welcome) = try server.openSession()
        try ws.send(callMessage(1, "_dsb.closePage", nil))
        #expect(try ws.nextMessage() == ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ""])
        #expect(try ws.closeCode() == 1000)
        #expect(dismissed.load(ordering: .relaxed) == 1)
        let again = try TestWebSocket(port: server.port)
        try again.send(["t": "hello", "v": 1, "token": welcome["token"] ?? .null])
        #expect(try again.closeCode() == 4004)
    }

    @Test("an idle socket hears hb (without seq) after heartbeatMs of silence")
    func heartbeat() throws {
        let server = try RunningServer { $0.heartbeatMs = 1000 }
        defer { server.stop() }
        let (ws, welcome) = try server.openSession()
        #expect(welcome["heartbeat"] == 1000)
        #expect(try ws.nextMessage() == ["t": "hb"])
        try ws.send(callMessage(1, "testSyn", "a"))
        #expect(try ws.nextMessage()["seq"] == 1)
    }

    @Test("at maxCallsPending the server stops reading, then resumes: every call is still answered")
    func backpressure() throws {
        let server = try RunningServer { $0.maxCallsPending = 2 }
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        for i in 1...40 { try ws.send(callMessage(Int64(i), "test.sleepSyn", 5)) }
        try ws.send(callMessage(41, "testSyn", "last"))
        var ids = Set<Int64>()
        while ids.count < 41 { ids.insert(try ws.nextMessage()["id"]?.integerValue ?? 0) }
        #expect(ids == Set(1...41))
    }

    @Test("a duplicate call id is dropped without a reply")
    func duplicateIds() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        try ws.send(callMessage(5, "testSyn", "a"))
        try ws.send(callMessage(5, "testSyn", "b"))
        try ws.send(callMessage(3, "testSyn", "c"))
        try ws.send(callMessage(6, "testSyn", "d"))
        #expect(try ws.nextMessage()["data"] == "a[ syn call]")
        #expect(try ws.nextMessage()["data"] == "d[ syn call]")
    }

    @Test("static files: MIME types, nosniff, index, redirect, 404 for dotfiles and traversal")
    func staticFiles() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let index = try TestHTTP.request(port: server.port, path: "/")
        #expect(index.status == 200)
        #expect(index.headers["content-type"] == "text/html; charset=utf-8")
        #expect(index.headers["x-content-type-options"] == "nosniff")
        #expect(try TestHTTP.request(port: server.port, path: "/app.js").headers["content-type"] == "text/javascript; charset=utf-8")
        #expect(try TestHTTP.request(port: server.port, path: "/sub/site.css").headers["content-type"] == "text/css; charset=utf-8")
        let redirect = try TestHTTP.request(port: server.port, path: "/sub?x=1")
        #expect(redirect.status == 301)
        #expect(redirect.headers["location"] == "/sub/?x=1")
        #expect(try TestHTTP.request(port: server.port, path: "/sub/").status == 404)
        #expect(try TestHTTP.request(port: server.port, path: "/.hidden").status == 404)
        #expect(try TestHTTP.request(port: server.port, path: "/missing.html").status == 404)
        #expect(try TestHTTP.request(port: server.port, path: "/%2e%2e/etc/passwd").status == 404)
        let head = try TestHTTP.request(port: server.port, method: "HEAD", path: "/app.js")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
    }

    @Test("admin: /healthz is open, everything else needs the bearer token")
    func admin() throws {
        let server = try RunningServer()
        defer { server.stop() }
        #expect(try TestHTTP.request(port: server.adminPort, path: "/healthz").text == "ok\n")
        #expect(try TestHTTP.request(port: server.adminPort, path: "/admin/sessions").status == 401)
        #expect(try TestHTTP.request(port: server.adminPort, path: "/admin/sessions", headers: ["Authorization": "Bearer wrong"]).status == 401)
        #expect(try TestHTTP.request(port: server.adminPort, path: "/nope").status == 401)
        let (ws, welcome) = try server.openSession()
        defer { withExtendedLifetime(ws) {} }
        let list = try TestHTTP.request(port: server.adminPort, path: "/admin/sessions", headers: ["Authorization": "Bearer \(RunningServer.adminToken)"])
        #expect(list.status == 200)
        let sessions = try JSONParser.parse(list.body)
        #expect(sessions.arrayValue?.first?["session"] == welcome["session"])
        #expect(sessions.arrayValue?.first?["connected"] == true)
    }

    @Test("admin call: an invoke is held until dsinit, the page's progress and result come back")
    func adminCall() async throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (ws, welcome) = try server.openSession()
        let id = try #require(welcome["session"]?.stringValue)
        let port = server.adminPort
        let body = Array("{\"method\":\"startTimer\",\"args\":[],\"timeoutMs\":5000}".utf8)
        let call = Task.detached {
            try TestHTTP.request(
                port: port, method: "POST", path: "/admin/sessions/\(id)/call",
                headers: ["Authorization": "Bearer \(RunningServer.adminToken)"], body: body)
        }
        try await Task.sleep(for: .milliseconds(100))
        try ws.send(callMessage(1, "_dsb.dsinit", nil))
        var invoke = try ws.nextMessage()
        if invoke["t"] == "ret" { invoke = try ws.nextMessage() }
        #expect(invoke["t"] == "invoke")
        #expect(invoke["method"] == "startTimer")
        #expect(invoke["callbackId"] == 1)
        #expect(invoke["args"] == [])
        try ws.send(callMessage(2, "_dsb.returnValue", ["id": 1, "data": 0, "complete": false]))
        try ws.send(callMessage(3, "_dsb.returnValue", ["id": 1, "data": 1, "complete": false]))
        try ws.send(callMessage(4, "_dsb.returnValue", ["id": 1, "data": 2]))
        let response = try await call.value
        #expect(response.status == 200)
        #expect(try JSONParser.parse(response.body) == ["data": 2, "progress": [0, 1]])
        let unknown = try TestHTTP.request(
            port: port, method: "POST", path: "/admin/sessions/nope/call",
            headers: ["Authorization": "Bearer \(RunningServer.adminToken)"], body: body)
        #expect(unknown.status == 404)
    }
}

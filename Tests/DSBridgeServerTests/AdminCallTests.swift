// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Synchronization
import Testing

@Suite("Native-initiated calls through the admin API (PROTOCOL.md 6)")
struct AdminCallTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let method: String
        let args: JSONValue
        let data: JSONValue
        var progress: JSONValue = []
        var testDescription: String { "\(method) \(args)" }
    }

    /// DSBridge's native→JS demo rows: web/demo-rows.json (`toPage`).
    static let demoSequence: [Row] = DemoRowsFixture.toPage.compactMap { row in
        guard let method = row["method"]?.stringValue, let args = row["args"], let data = row["result"] else { return nil }
        return Row(method: method, args: args, data: data, progress: row["progress"] ?? [])
    }

    @Test("the native→JS demo rows are read from web/demo-rows.json")
    func fixture() {
        #expect(Self.demoSequence.count == 11, "\(DemoRowsFixture.url.path)")
    }

    private func adminCall(_ server: RunningServer, _ session: String, _ body: JSONValue, token: String = RunningServer.adminToken) throws -> TestHTTP.Response
    {
        try TestHTTP.request(
            port: server.adminPort, method: "POST", path: "/admin/sessions/\(session)/call",
            headers: ["Authorization": "Bearer \(token)"], body: Array(body.description.utf8))
    }

    @Test("every row of DSBridge's native→JS demo answers with its data and progress", arguments: demoSequence)
    func demoRow(row: Row) throws {
        let server = try RunningServer()
        defer { server.stop() }
        let page = try ScriptedPage(port: server.port)
        page.start()
        defer { page.stop() }
        let r = try adminCall(server, page.sessionID, ["method": .string(row.method), "args": row.args, "timeoutMs": 5000])
        #expect(r.status == 200)
        #expect(try JSONParser.parse(r.body) == ["data": row.data, "progress": row.progress])
    }

    @Test("a group call reaches every session with the tag on this node, one result each; no tag, no result")
    func groupCall() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let pages = try (0..<3).map { _ in try ScriptedPage(port: server.port) }
        for p in pages { p.start() }
        defer { for p in pages { p.stop() } }
        for p in pages.prefix(2) { server.bridge.session(id: p.sessionID)?.setTags(["room:7"]) }
        let r = try TestHTTP.request(
            port: server.adminPort, method: "POST", path: "/admin/groups/room:7/call",
            headers: ["Authorization": "Bearer \(RunningServer.adminToken)"],
            body: Array(#"{"method":"addValue","args":[3,4],"timeoutMs":5000}"#.utf8))
        #expect(r.status == 200)
        guard case .object(let body) = try JSONParser.parse(r.body), case .array(let results)? = body["results"] else {
            Issue.record("answered \(String(decoding: r.body, as: UTF8.self))")
            return
        }
        let bySession = Dictionary(uniqueKeysWithValues: results.compactMap { r in r["session"]?.stringValue.map { ($0, r) } })
        #expect(Set(bySession.keys) == Set(pages.prefix(2).map(\.sessionID)))
        for result in bySession.values {
            #expect(result["status"] == 200 && result["body"] == ["data": 7, "progress": []])
            #expect(result["node"] == nil, "no node field on a single node")
        }
        let none = try TestHTTP.request(
            port: server.adminPort, method: "POST", path: "/admin/groups/nobody/call",
            headers: ["Authorization": "Bearer \(RunningServer.adminToken)"], body: Array(#"{"method":"x"}"#.utf8))
        let noneBody = try JSONParser.parse(none.body)
        #expect(none.status == 200 && noneBody == ["results": []])
        let bad = try TestHTTP.request(
            port: server.adminPort, method: "POST", path: "/admin/groups/room:7/call",
            headers: ["Authorization": "Bearer \(RunningServer.adminToken)"], body: Array(#"{"method":1}"#.utf8))
        #expect(bad.status == 400)
    }

    @Test("calls made before dsinit wait and arrive in order after it")
    func startupQueue() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let page = try ScriptedPage(port: server.port)
        let sessionID = page.sessionID
        let adminPort = server.adminPort
        // Blocking clients on their own threads (not the concurrency pool the server uses).
        let results = Mutex<[Int: JSONValue]>([:])
        let session = server.bridge.sessions.first { $0.id == sessionID }
        for i in 1...5 {
            // One at a time: each call is held by the server before the next one is sent, so
            // the order they were made in is defined (threads alone race under load).
            let deadline = Date().addingTimeInterval(5)
            while (session?.queuedCount ?? 0) < i - 1, Date() < deadline { usleep(2_000) }
            Thread.detachNewThread {
                let r = try? TestHTTP.request(
                    port: adminPort, method: "POST", path: "/admin/sessions/\(sessionID)/call",
                    headers: ["Authorization": "Bearer \(RunningServer.adminToken)"],
                    body: Array("{\"method\":\"addValue\",\"args\":[\(i),100]}".utf8))
                let value: JSONValue = r.flatMap { try? JSONParser.parse($0.body) } ?? .null
                results.withLock { $0[i] = value }
            }
        }
        // All five are held by the server now. What it has sent the page comes in seq order,
        // so the answer to a call made now is the first message the page gets unless an
        // invoke went out before dsinit.
        let deadline0 = Date().addingTimeInterval(5)
        while (session?.queuedCount ?? 0) < 5, Date() < deadline0 { usleep(2_000) }
        try page.send("testSyn", "probe")
        let first = try page.ws.nextMessage()
        #expect(first["t"] == "ret" && first["id"] == 1, "before dsinit the page got \(first)")
        page.start(dsinit: true)
        defer { page.stop() }
        let deadline = Date().addingTimeInterval(5)
        while results.withLock({ $0.count }) < 5, Date() < deadline { usleep(10_000) }
        let answers = results.withLock { $0 }
        for i in 1...5 { #expect(answers[i] == ["data": .integer(Int64(i + 100)), "progress": []], "call \(i)") }
        let order = page.invokesSeen.withLock { $0 }.map { $0["args"]?.arrayValue?.first ?? .null }
        #expect(order == [1, 2, 3, 4, 5])
    }

    @Test("errors: 401 wrong token, 404 unknown session (before 400), 400 bad body, 422 page error, 504 timeout with progress")
    func errors() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let page = try ScriptedPage(port: server.port)
        page.start()
        defer { page.stop() }
        #expect(try adminCall(server, page.sessionID, ["method": "addValue"], token: "wrong").status == 401)
        #expect(try adminCall(server, "nope", ["method": 5]).status == 404)
        for bad: JSONValue in [["method": 5], ["method": "a", "args": 1], ["method": "a", "timeoutMs": 0], ["method": "a", "timeoutMs": 1.5], [1]] {
            let r = try adminCall(server, page.sessionID, bad)
            #expect(r.status == 400, "\(bad)")
        }
        let refused = try adminCall(server, page.sessionID, ["method": "nope.nothing", "args": []])
        #expect(refused.status == 422)
        #expect(try JSONParser.parse(refused.body) == ["error": "nope.nothing is not registered", "progress": []])
        let never = try ScriptedPage(port: server.port)  // never answers: no start()
        let timeout = try adminCall(server, never.sessionID, ["method": "addValue", "args": [1, 2], "timeoutMs": 200])
        #expect(timeout.status == 504)
        #expect(try JSONParser.parse(timeout.body) == ["error": "timeout", "progress": []])
    }
}

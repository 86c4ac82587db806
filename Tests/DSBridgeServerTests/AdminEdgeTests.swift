// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Testing

/// Admin calls that end (PROTOCOL.md 6): timeouts release their callbackId, drains answer 503.
@Suite("Admin calls that end")
struct AdminEdgeTests {
    private func adminCall(_ server: RunningServer, _ session: String, _ body: JSONValue) throws -> TestHTTP.Response {
        try TestHTTP.request(
            port: server.adminPort, method: "POST", path: "/admin/sessions/\(session)/call",
            headers: ["Authorization": "Bearer \(RunningServer.adminToken)"], body: Array(body.description.utf8))
    }

    @Test("a call into a page that never got ready is not delivered after its 504")
    func timedOutCallNotDelivered() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (ws, welcome) = try server.openSession()
        let id = try #require(welcome["session"]?.stringValue)
        #expect(try adminCall(server, id, ["method": "addValue", "args": [1, 2], "timeoutMs": 100]).status == 504)
        try ws.send(.array([callMessage(1, "_dsb.dsinit", nil), callMessage(2, "testSyn", "x")]))
        #expect(try ws.nextMessage() == ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ""])
        #expect(try ws.nextMessage() == ["t": "ret", "seq": 2, "id": 2, "code": 0, "data": "x[ syn call]"])
    }

    @Test("once a drain closed a session's socket, an admin call into it gets 503 draining at once")
    func drainedSession() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (busy, _) = try server.openSession()
        try busy.send(callMessage(1, "test.sleepSyn", 3000))  // keeps the drain going
        let (idle, welcome) = try server.openSession()
        let id = try #require(welcome["session"]?.stringValue)
        server.server.stop()
        #expect(try idle.closeCode() == 1001)
        let started = Date()
        let r = try adminCall(server, id, ["method": "addValue", "args": [1, 2], "timeoutMs": 2500])
        #expect(r.status == 503)
        #expect(try JSONParser.parse(r.text) == ["error": "draining"])
        #expect(Date().timeIntervalSince(started) < 1)
    }
}

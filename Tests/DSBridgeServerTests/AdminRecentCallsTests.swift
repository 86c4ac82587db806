// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Testing

/// `GET /admin/sessions/ID/calls` and the `calls` count of the listing (PROTOCOL.md 6,
/// revision 1.9): what the admin page's session detail shows.
@Suite("Admin: a session's recent calls")
struct AdminRecentCallsTests {
    private func admin(_ server: RunningServer, _ path: String) throws -> (status: Int, body: JSONValue) {
        let r = try TestHTTP.request(
            port: server.adminPort, path: path, headers: ["Authorization": "Bearer \(RunningServer.adminToken)"])
        return (r.status, try JSONParser.parse(r.text))
    }

    @Test("the first look starts a minute of recording; calls then show newest first with outcome and time")
    func recentCalls() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (ws, welcome) = try server.openSession()
        let id = try #require(welcome["session"]?.stringValue)
        try ws.send(callMessage(1, "testSyn", "before"))
        _ = try ws.nextMessage()

        let first = try admin(server, "/admin/sessions/\(id)/calls")
        #expect(first.status == 200)
        #expect(first.body == ["session": .string(id), "watchingForMs": 60000, "calls": []], "nothing recorded before the look")

        try ws.send(callMessage(2, "testSyn", "x"))
        try ws.send(callMessage(3, "<b>no</b>", 1))
        _ = try ws.nextMessage()
        _ = try ws.nextMessage()
        let second = try admin(server, "/admin/sessions/\(id)/calls")
        let calls = try #require(second.body["calls"]?.arrayValue)
        #expect(calls.map { $0["method"] } == ["<b>no</b>", "testSyn"])
        #expect(calls.map { $0["outcome"] } == ["methodNotFound", "ok"])
        #expect(calls[0]["micros"] == .null)
        #expect(calls[1]["micros"]?.integerValue != nil)
        let at = try #require(calls[0]["at"]?.stringValue)
        #expect(at.hasSuffix("Z") && at.count == 24, "ISO 8601 with milliseconds: \(at)")

        let listing = try admin(server, "/admin/sessions")
        let row = try #require(listing.body.arrayValue?.first { $0["session"] == .string(id) })
        #expect(row["calls"] == 3, "every call counts, recorded or not")
    }

    @Test("an unknown session: 404; without the token: 401")
    func refusals() throws {
        let server = try RunningServer()
        defer { server.stop() }
        #expect(try admin(server, "/admin/sessions/nosuchsession/calls").status == 404)
        #expect(try TestHTTP.request(port: server.adminPort, path: "/admin/sessions/x/calls").status == 401)
    }
}

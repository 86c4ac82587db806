// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Testing

@testable import DSBridgeServer

/// The admin routes of a session's bridge components and the demo components (PROTOCOL.md
/// 9.4), against a real server with `--demo`'s registrations. Serialized: each test blocks a
/// thread of the concurrency pool on its socket while the components run on that pool.
@Suite("Bridge component admin routes", .serialized)
struct ComponentAdminTests {
    private func admin(_ server: RunningServer, _ method: String, _ path: String, body: String? = nil, token: Bool = true) throws
        -> TestHTTP.Response
    {
        var headers: [String: String] = [:]
        if token { headers["Authorization"] = "Bearer \(RunningServer.adminToken)" }
        return try TestHTTP.request(port: server.adminPort, method: method, path: path, headers: headers, body: body.map { Array($0.utf8) })
    }

    private func json(_ r: TestHTTP.Response) throws -> JSONValue { try JSONParser.parse(r.text) }

    private func message(_ id: String, _ component: String, _ event: String, _ data: JSONValue) -> JSONValue {
        ["id": .string(id), "component": .string(component), "event": .string(event), "data": data]
    }

    /// A ready page that sent the demo form's `connect` and the menu's `display`.
    private func page(_ server: RunningServer) throws -> (TestWebSocket, String) {
        let (ws, welcome) = try server.openSession()
        let id = try #require(welcome["session"]?.stringValue)
        try ws.send(callMessage(1, "_dsb.dsinit", nil))
        try ws.send(callMessage(2, "_hotwire.receive", message("1", "form", "connect", ["submitTitle": "Submit", "metadata": ["url": "http://p/f"]])))
        try ws.send(callMessage(3, "_hotwire.receive", message("2", "menu", "display", ["title": "Select", "items": [["title": "One", "index": 0]]])))
        for _ in 0..<3 { _ = try ws.nextMessage() }
        return (ws, id)
    }

    @Test("the demo registers form, menu and overflow-menu, and pages learn the names")
    func demoComponentsListed() throws {
        let server = try RunningServer()
        defer { server.stop() }
        #expect(server.bridge.registry.bridgeComponents.names == ["form", "menu", "overflow-menu"])
        let (ws, _) = try server.openSession()
        try ws.send(callMessage(1, "_hotwire.components", nil))
        #expect(try ws.nextMessage()["data"] == ["form", "menu", "overflow-menu"])
    }

    @Test("GET components: nothing before a message, then each component's last message per event")
    func listsLastMessages() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (_, fresh) = try server.openSession()
        let freshID = try #require(fresh["session"]?.stringValue)
        let empty = try admin(server, "GET", "/admin/sessions/\(freshID)/components")
        #expect(empty.status == 200)
        #expect(try json(empty) == ["session": .string(freshID), "components": [:]])
        let (_, id) = try page(server)
        let listed = try json(try admin(server, "GET", "/admin/sessions/\(id)/components"))
        #expect(listed["components"]?["form"]?["connect"] == message("1", "form", "connect", ["submitTitle": "Submit", "metadata": ["url": "http://p/f"]]))
        #expect(listed["components"]?["menu"]?["display"]?["id"] == "2")
        #expect(try admin(server, "HEAD", "/admin/sessions/\(id)/components").status == 200)
    }

    @Test("POST reply: the page gets the last message of the event, its data replaced when given, any number of times")
    func repliesReachThePage() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (ws, id) = try page(server)
        let plain = try admin(server, "POST", "/admin/sessions/\(id)/components/form/reply", body: #"{"event":"connect"}"#)
        #expect(plain.status == 200)
        let sent = message("1", "form", "connect", ["submitTitle": "Submit", "metadata": ["url": "http://p/f"]])
        #expect(try json(plain) == ["replied": sent])
        let first = try ws.nextMessage()
        #expect(first["t"] == "invoke" && first["method"] == "_hotwire.reply" && first["args"] == [sent])
        #expect(try admin(server, "POST", "/admin/sessions/\(id)/components/form/reply", body: #"{"event":"connect"}"#).status == 200)
        #expect(try ws.nextMessage()["args"] == [sent])
        let chosen = try admin(
            server, "POST", "/admin/sessions/\(id)/components/menu/reply", body: #"{"event":"display","data":{"selectedIndex":1}}"#)
        #expect(chosen.status == 200)
        #expect(try ws.nextMessage()["args"] == [message("2", "menu", "display", ["selectedIndex": 1])])
    }

    @Test("404 for an unknown session, an unregistered component and an event never received; 400 for bad bodies")
    func refusals() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (_, id) = try page(server)
        let cases: [(String, String, String?, Int, String)] = [
            ("GET", "/admin/sessions/nope/components", nil, 404, "unknown session"),
            ("POST", "/admin/sessions/nope/components/form/reply", #"{"event":"connect"}"#, 404, "unknown session"),
            ("POST", "/admin/sessions/\(id)/components/sheet/reply", #"{"event":"connect"}"#, 404, "no bridge component \"sheet\" is registered"),
            (
                "POST", "/admin/sessions/\(id)/components/overflow-menu/reply", #"{"event":"connect"}"#, 404,
                "component \"overflow-menu\" received no \"connect\" message in this session"
            ),
            (
                "POST", "/admin/sessions/\(id)/components/form/reply", #"{"event":"submitDisabled"}"#, 404,
                "component \"form\" received no \"submitDisabled\" message in this session"
            ),
            ("POST", "/admin/sessions/\(id)/components/form/reply", "nope", 400, "body is not JSON: send {\"event\": string, \"data\": object}"),
            ("POST", "/admin/sessions/\(id)/components/form/reply", #"{"data":{}}"#, 400, "event must be a string (the event of the message to reply to)"),
            (
                "POST", "/admin/sessions/\(id)/components/form/reply", #"{"event":"connect","data":[1]}"#, 400,
                "data must be an object (the page reads its members), got an array"
            ),
        ]
        for (method, path, body, status, error) in cases {
            let r = try admin(server, method, path, body: body)
            #expect(r.status == status, "\(method) \(path) \(body ?? "")")
            #expect(try json(r) == ["error": .string(error)], "\(method) \(path) \(body ?? ""): \(r.text)")
        }
    }

    @Test("the wrong method gets 405 with Allow; no token 401; other paths below components 404")
    func methodsAndPaths() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (_, id) = try page(server)
        let post = try admin(server, "POST", "/admin/sessions/\(id)/components", body: "{}")
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD")
        let get = try admin(server, "GET", "/admin/sessions/\(id)/components/form/reply")
        #expect(get.status == 405)
        #expect(get.headers["allow"] == "POST")
        #expect(try admin(server, "GET", "/admin/sessions/\(id)/components", token: false).status == 401)
        #expect(try admin(server, "GET", "/admin/sessions/\(id)/components/form").status == 404)
        #expect(try admin(server, "POST", "/admin/sessions/\(id)/components/form/answer", body: "{}").status == 404)
    }

    @Test("routes are recognised from the path's segments only")
    func routeParsing() {
        func route(_ path: String) -> ComponentAdminRoute? {
            ComponentAdminRoute(segments: path.split(separator: "/", omittingEmptySubsequences: true))
        }
        #expect(route("/admin/sessions/S/components") == .list(session: "S"))
        #expect(route("/admin/sessions/S/components/overflow-menu/reply") == .reply(session: "S", component: "overflow-menu"))
        #expect(route("/admin/sessions/S/calls") == nil)
        #expect(route("/admin/sessions/S/components/x") == nil)
        #expect(route("/admin/groups/S/components") == nil)
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Testing

@Suite("Sync calls over POST /dsbridge/call")
struct SyncHTTPCallTests {
    private func newSessionToken(_ server: RunningServer) throws -> String {
        let r = try TestHTTP.request(port: server.port, method: "POST", path: "/dsbridge/session", body: [])
        #expect(r.status == 200)
        let value = try JSONParser.parse(r.body)
        #expect(value["session"]?.stringValue != nil)
        return try #require(value["token"]?.stringValue)
    }

    @Test("every demo row answers {code, data} like a DSBridge native side", arguments: DemoRow.all)
    func demoRow(row: DemoRow) throws {
        let server = try RunningServer()
        defer { server.stop() }
        let token = try newSessionToken(server)
        let r = try server.syncCall(token: token, method: row.method, arg: ["data": row.data])
        #expect(r.status == 200)
        #expect(r.headers["content-type"] == "application/json")
        let answer = try JSONParser.parse(r.body)
        #expect(answer == ["code": 0, "data": row.isAsync ? "" : row.result])
    }

    @Test("the arg may be the JSON string the original dsbridge.js sends")
    func stringArg() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let token = try newSessionToken(server)
        let r = try server.syncCall(token: token, method: "testSyn", arg: "{\"data\":\"Hello\"}")
        #expect(r.text == "{\"code\":0,\"data\":\"Hello[ syn call]\"}")
    }

    @Test("internal methods work over HTTP: hasNativeMethod with all, syn and asyn")
    func hasNativeMethod() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let token = try newSessionToken(server)
        let cases: [(String, String?, Bool)] = [
            ("testSyn", nil, true), ("testSyn", "syn", true), ("testSyn", "asyn", false),
            ("testAsyn", "asyn", true), ("testAsyn", "syn", false), ("testAsyn", "all", true),
            ("xx", nil, false), ("echo.asyn", "asyn", true), ("echo.nope", nil, false),
            ("_dsb.closePage", "syn", true), ("_dsb.closePage", "asyn", false), ("_dsb.nothing", nil, false),
        ]
        for (name, type, expected) in cases {
            var data: JSONObject = ["name": .string(name)]
            if let type { data["type"] = .string(type) }
            let r = try server.syncCall(token: token, method: "_dsb.hasNativeMethod", arg: ["data": .object(data)])
            #expect(try JSONParser.parse(r.body) == ["code": 0, "data": .bool(expected)], "\(name) \(type ?? "-")")
        }
    }

    @Test("unknown methods and bad arguments answer code -1 with the error kind")
    func errors() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let token = try newSessionToken(server)
        let notFound = try JSONParser.parse(try server.syncCall(token: token, method: "testNever", arg: ["data": ["msg": "testSyn"]]).body)
        #expect(notFound["code"] == -1)
        #expect(notFound["data"] == "")
        #expect(notFound["error"]?["kind"] == "methodNotFound")
        let bad = try JSONParser.parse(try server.syncCall(token: token, method: "testSyn", arg: ["data": 1]).body)
        #expect(bad["error"]?["kind"] == "badArgument")
    }

    @Test("HTTP errors: 401 without a valid token, 400 for a malformed body or After, 405 for other methods")
    func httpErrors() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let token = try newSessionToken(server)
        #expect(try server.syncCall(token: "nope", method: "testSyn", arg: nil).status == 401)
        let noToken = try TestHTTP.request(port: server.port, method: "POST", path: "/dsbridge/call", body: Array("{}".utf8))
        #expect(noToken.status == 401)
        for body in ["", "[]", "{\"method\":5}", "not json", "{\"arg\":{}}"] {
            let r = try TestHTTP.request(
                port: server.port, method: "POST", path: "/dsbridge/call",
                headers: ["X-DSBridge-Token": token], body: Array(body.utf8))
            #expect(r.status == 400, "body \(body)")
        }
        for after in ["", "-1", "01", "1.5", "9007199254740992", "x"] {
            #expect(try server.syncCall(token: token, method: "testSyn", arg: ["data": "a"], after: after).status == 400, "after \(after)")
        }
        #expect(try server.syncCall(token: token, method: "testSyn", arg: ["data": "a"], after: "0").status == 200)
        #expect(try TestHTTP.request(port: server.port, method: "GET", path: "/dsbridge/call").status == 405)
        #expect(try TestHTTP.request(port: server.port, method: "PUT", path: "/dsbridge/session", body: []).status == 405)
        #expect(try TestHTTP.request(port: server.port, method: "GET", path: "/dsbridge").status == 400)
    }

    @Test("a sync call waits until the socket calls named by X-DSBridge-After have started")
    func afterWaitsForSocketCalls() throws {
        // (A wait shorter than the test client's 5 s read timeout: the default, 5 s, raced it.)
        let server = try RunningServer(configure: { $0.afterTimeoutMs = 1_000 })
        defer { server.stop() }
        let (ws, welcome) = try server.openSession()
        let token = try #require(welcome["token"]?.stringValue)
        // The page sent call 1 (a slow sync method) on the socket; the sync call names it.
        try ws.send(callMessage(1, "test.sleepSyn", 50))
        let r = try server.syncCall(token: token, method: "testSyn", arg: ["data": "x"], after: "1")
        #expect(try JSONParser.parse(r.body) == ["code": 0, "data": "x[ syn call]"])
        // A call id the server never receives times out with code -1 timeout.
        let late = try server.syncCall(token: token, method: "testSyn", arg: ["data": "x"], after: "5")
        #expect(try JSONParser.parse(late.body)["error"]?["kind"] == "timeout")
    }

    @Test("a sync call with a stub sends its completions as cb on the session's socket")
    func stubCompletionsGoToSocket() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (ws, welcome) = try server.openSession()
        let token = try #require(welcome["token"]?.stringValue)
        let r = try server.syncCall(token: token, method: "testAsyn", arg: ["data": "h", "_dscbstub": "dscb3"])
        #expect(r.text == "{\"code\":0,\"data\":\"\"}")
        #expect(try ws.nextMessage() == ["t": "cb", "seq": 1, "stub": "dscb3", "data": "h [ asyn call]", "complete": true])
    }

    @Test("a socket attaches to a session made by POST /dsbridge/session and is told resumed")
    func attachToPostedSession() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let token = try newSessionToken(server)
        _ = try server.syncCall(token: token, method: "_dsb.dsinit", arg: nil)
        let ws = try TestWebSocket(port: server.port)
        let welcome = try ws.hello(token: token)
        #expect(welcome["resumed"] == true)
        #expect(welcome["token"] == .string(token))
        #expect(welcome["lastCall"] == 0)
    }
}

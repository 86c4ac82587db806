// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeDemo
import DSBridgeServer
import Foundation
import Logging

/// A real server on 127.0.0.1, ports chosen by the system, with the demo interfaces and a
/// throwaway web root; `stop()` ends it.
final class RunningServer {
    let server: BridgeServer
    let bridge: Bridge
    let port: Int
    let adminPort: Int
    let webRoot: URL
    static let adminToken = "admin-secret"

    init(
        tickMs: Int = 5, allowedOrigins: [String] = [], trustedProxies: [String] = [], configure: (inout BridgeConfiguration) -> Void = { _ in },
        dismissal: (@Sendable (BridgeSession) -> Void)? = nil, authenticator: (any SessionAuthenticator)? = nil,
        configureServer: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        var config = BridgeConfiguration()
        configure(&config)
        var logger = Logger(label: "test")
        logger.logLevel = .error
        bridge = Bridge(configuration: config, logger: logger, lifecycle: SessionLifecycle(dismissed: dismissal), authenticator: authenticator)
        DemoInterfaces.register(on: bridge, tickMs: tickMs)
        webRoot = FileManager.default.temporaryDirectory.appendingPathComponent("dsbridged-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: webRoot.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("<!doctype html><title>t</title>".utf8).write(to: webRoot.appendingPathComponent("index.html"))
        try Data("window.x = 1;".utf8).write(to: webRoot.appendingPathComponent("app.js"))
        try Data("body{}".utf8).write(to: webRoot.appendingPathComponent("sub/site.css"))
        try Data("secret".utf8).write(to: webRoot.appendingPathComponent(".hidden"))
        var serverConfig = ServerConfiguration()
        serverConfig.port = 0
        serverConfig.adminPort = 0
        serverConfig.adminToken = Self.adminToken
        serverConfig.webRoot = webRoot.path
        serverConfig.allowedOrigins = allowedOrigins
        serverConfig.trustedProxies = trustedProxies
        configureServer(&serverConfig)
        server = BridgeServer(bridge: bridge, configuration: serverConfig, logger: logger)
        let ports = try server.start()
        port = ports.port
        adminPort = ports.adminPort
    }

    func stop() {
        server.stop()
        server.waitUntilStopped()
        try? FileManager.default.removeItem(at: webRoot)
    }

    /// A socket that has said hello.
    func openSession() throws -> (TestWebSocket, JSONValue) {
        let ws = try TestWebSocket(port: port)
        let welcome = try ws.hello()
        return (ws, welcome)
    }

    /// `POST /dsbridge/call` with `{"method", "arg"}`.
    func syncCall(token: String, method: String, arg: JSONValue?, after: String? = nil) throws -> TestHTTP.Response {
        var body: JSONObject = ["method": .string(method)]
        if let arg { body["arg"] = arg }
        var headers = ["X-DSBridge-Token": token, "Content-Type": "application/json"]
        if let after { headers["X-DSBridge-After"] = after }
        return try TestHTTP.request(port: port, method: "POST", path: "/dsbridge/call", headers: headers, body: Array(JSONValue.object(body).description.utf8))
    }
}

/// Builds a `call` message.
func callMessage(_ id: Int64, _ method: String, _ data: JSONValue?, stub: String? = nil) -> JSONValue {
    var arg: JSONObject = [:]
    if let data { arg["data"] = data }
    if let stub { arg["_dscbstub"] = .string(stub) }
    return ["t": "call", "id": .integer(id), "method": .string(method), "arg": .object(arg)]
}

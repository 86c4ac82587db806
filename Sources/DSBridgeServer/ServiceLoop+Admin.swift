// SPDX-License-Identifier: MIT
import CLibWebSockets
import DSBridge
import Foundation

/// The admin listener's routes (PROTOCOL.md 6), on the service thread.
extension ServiceLoop {
    func routeAdmin(_ exchange: HTTPExchange) {
        if exchange.path == "/healthz" {
            return respond(exchange, server.isDraining ? .text(503, "draining") : .text(200, "ok"))
        }
        guard let expected = config.adminToken,
            let given = exchange.headers["authorization"],
            AdminAPI.bearerMatches(given, expected)
        else {
            var a = HTTPAnswer.json(401, ["error": "missing or wrong bearer token"])
            a.closeAfter = exchange.method == .post
            return respond(exchange, a)
        }
        let parts = exchange.path.split(separator: "/", omittingEmptySubsequences: true)
        switch (exchange.method, parts.count) {
        case (.get, 1) where parts[0] == "metrics":
            guard let render = server.metricsRenderer else { return respond(exchange, .json(404, ["error": "metrics are not enabled"])) }
            // Both walk every session: on a worker, not on the network thread.
            let reply = respondLater(exchange)
            let bridge = self.bridge
            OffloadedWork.queue.async {
                TransportMetrics.recordSessionGauges(bridge.sessions)
                let body = render() + MemoryBudgetMetrics.render(bridge.memory)
                reply(HTTPAnswer(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: body))
            }
        case (.get, 2) where parts[0] == "admin" && parts[1] == "sessions":
            let reply = respondLater(exchange)
            let bridge = self.bridge
            OffloadedWork.queue.async { reply(.json(200, AdminAPI.sessionList(bridge.sessions))) }
        case (.post, 4) where parts[0] == "admin" && parts[1] == "sessions" && parts[3] == "call":
            guard let session = bridge.session(id: String(parts[2])) else {
                var a = HTTPAnswer.json(404, ["error": "unknown session"])
                a.closeAfter = true
                return respond(exchange, a)
            }
            expectBody(exchange) { [self] exchange in
                adminCall(exchange, session)
            }
        default:
            var a = HTTPAnswer.json(404, ["error": "not found"])
            a.closeAfter = exchange.method == .post
            respond(exchange, a)
        }
    }

    private func adminCall(_ exchange: HTTPExchange, _ session: BridgeSession) {
        // The drain closed its socket: no page will answer (also for calls made after that).
        if drainClosedSessions.contains(session.id) { return respond(exchange, .json(503, ["error": "draining"])) }
        let request: AdminAPI.CallRequest
        do {
            request = try AdminAPI.CallRequest(body: exchange.body)
        } catch {
            return respond(exchange, .json(400, ["error": .string(error.reason)]))
        }
        exchange.adminCallSession = session.id
        let reply = respondLater(exchange)
        AdminAPI.call(session, request) { answer in reply(answer) }
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import Foundation

/// The admin listener's routes (PROTOCOL.md 6), on the service thread.
extension ServiceLoop {
    func routeAdmin(_ exchange: HTTPExchange) {
        if exchange.path == "/healthz" {
            if server.isDraining { return respond(exchange, .text(503, "draining")) }
            return respond(exchange, .text(200, server.cluster?.healthNote.map { "ok (\($0))" } ?? "ok"))
        }
        if AdminUIRoute.matches(exchange.path) {
            return respond(
                exchange,
                AdminUIRoute.answer(
                    method: exchange.method, path: exchange.path, query: exchange.rawTarget?.query, enabled: config.adminToken != nil))
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
        if let route = ComponentAdminRoute(segments: parts) { return routeComponents(exchange, route) }
        guard let route = AdminRoute(segments: parts) else {
            var a = HTTPAnswer.json(404, ["error": "not found"])
            a.closeAfter = exchange.method == .post
            return respond(exchange, a)
        }
        guard route.allows(exchange.method) else {
            var a = HTTPAnswer.json(405, ["error": .string("method not allowed: this path takes \(route.allowedMethods)")])
            a.headers.append(("Allow", route.allowedMethods))
            a.closeAfter = exchange.method == .post
            return respond(exchange, a)
        }
        // (HEAD answers as GET: the answer's writer leaves the body out.)
        switch route {
        case .metrics:
            guard server.metricsRenderer != nil else { return respond(exchange, .json(404, ["error": "metrics are not enabled"])) }
            // It walks every session: on a worker, not on the network thread.
            let reply = respondLater(exchange)
            let server = self.server
            OffloadedWork.queue.async {
                let body = server.metricsText() ?? []
                reply(HTTPAnswer(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: body))
            }
        case .nodes:
            guard let cluster = server.cluster else { return respond(exchange, .json(200, ["nodes": []])) }
            let reply = respondLater(exchange)
            cluster.listNodes { r in reply(.json(r.status, r.body)) }
        case .nodeMetrics(let node):
            guard let cluster = server.cluster else { return respond(exchange, .json(404, ["error": "not in cluster mode: GET /metrics"])) }
            let reply = respondLater(exchange)
            cluster.nodeMetrics(node: node) { r in reply(.json(r.status, r.body)) }
        case .sessions:
            let reply = respondLater(exchange)
            let bridge = self.bridge
            let cluster = server.cluster
            OffloadedWork.queue.async {
                let local = AdminAPI.sessionList(bridge.sessions, node: cluster?.nodeID)
                guard let cluster else { return reply(.json(200, .array(local))) }
                cluster.listSessions(local: local) { r in reply(.json(r.status, r.body)) }
            }
        case .sessionCall(let id):
            if let session = bridge.session(id: id), !session.hasMoved {
                return expectBody(exchange) { [self] exchange in adminCall(exchange, session) }
            }
            guard let cluster = server.cluster else {
                var a = HTTPAnswer.json(404, ["error": "unknown session"])
                a.closeAfter = true
                return respond(exchange, a)
            }
            expectBody(exchange) { [self] exchange in
                let reply = respondLater(exchange)
                let request = Result { () throws(ProtocolViolation) in try AdminCallRequest(body: exchange.body) }
                cluster.callSession(id: id, request: request) { r in reply(.json(r.status, r.body)) }
            }
        case .sessionCalls(let id):
            if let session = bridge.session(id: id), !session.hasMoved {
                return respond(exchange, .json(200, AdminAPI.recentCalls(session, node: server.cluster?.nodeID)))
            }
            guard let cluster = server.cluster else { return respond(exchange, .json(404, ["error": "unknown session"])) }
            let reply = respondLater(exchange)
            cluster.traceSession(id: id) { r in reply(.json(r.status, r.body)) }
        case .groupCall(let tag):
            expectBody(exchange) { [self] exchange in adminGroupCall(exchange, tag: tag) }
        }
    }

    /// `POST /admin/groups/TAG/call`: every session with the tag, here or (in a cluster) on
    /// any node; 200 `{"results":[{"session","node","status","body"}...]}`.
    private func adminGroupCall(_ exchange: HTTPExchange, tag: String) {
        guard let request = callRequest(exchange) else { return }
        let reply = respondLater(exchange)
        if let cluster = server.cluster {
            return cluster.callGroup(tag: tag, request: request) { r in reply(.json(r.status, r.body)) }
        }
        let tagged = bridge.sessions.filter { $0.tags.contains(tag) }
        AdminAPI.groupCall(tagged, node: nil, request) { results in reply(.json(200, ["results": .array(results)])) }
    }

    private func adminCall(_ exchange: HTTPExchange, _ session: BridgeSession) {
        // The drain closed its socket: no page will answer (also for calls made after that).
        if drainClosedSessions.contains(session.id) { return respond(exchange, .json(503, ["error": "draining"])) }
        guard let request = callRequest(exchange) else { return }
        exchange.adminCallSession = session.id
        let reply = respondLater(exchange)
        AdminAPI.call(session, request) { answer in reply(answer) }
    }

    /// The admin call in `exchange`'s body, with the caller's `traceparent`; `nil` once a
    /// body that is not one has been answered with 400.
    private func callRequest(_ exchange: HTTPExchange) -> AdminCallRequest? {
        do {
            var request = try AdminCallRequest(body: exchange.body)
            request.trace = exchange.headers["traceparent"].flatMap { TraceContext(traceparent: $0) }
            return request
        } catch {
            respond(exchange, .json(400, ["error": .string(error.reason)]))
            return nil
        }
    }
}

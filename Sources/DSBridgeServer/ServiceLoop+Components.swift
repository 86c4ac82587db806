// SPDX-License-Identifier: MIT
import DSBridge

/// The component admin routes (PROTOCOL.md 9.4) on the admin listener, after the token check.
/// They answer for this node's sessions (in a cluster, a session elsewhere is 404).
extension ServiceLoop {
    func routeComponents(_ exchange: HTTPExchange, _ route: ComponentAdminRoute) {
        guard route.allows(exchange.method) else {
            var a = HTTPAnswer.json(405, ["error": .string("method not allowed: this path takes \(route.allowedMethods)")])
            a.headers.append(("Allow", route.allowedMethods))
            a.closeAfter = exchange.method == .post
            return respond(exchange, a)
        }
        guard let session = bridge.session(id: route.session), !session.hasMoved else {
            var a = HTTPAnswer.json(404, ["error": "unknown session"])
            a.closeAfter = exchange.method == .post
            return respond(exchange, a)
        }
        switch route {
        case .list:
            let reply = respondLater(exchange)
            Task { @BridgeComponentActor in reply(.json(200, ComponentAdmin.list(session))) }
        case .reply(_, let name):
            expectBody(exchange) { [self] exchange in
                let request: ComponentReplyRequest
                do throws(ProtocolViolation) {
                    request = try ComponentReplyRequest(body: exchange.body)
                } catch {
                    return respond(exchange, .json(400, ["error": .string(error.reason)]))
                }
                let reply = respondLater(exchange)
                Task { @BridgeComponentActor in
                    let answer = await ComponentAdmin.reply(session, component: name, request)
                    reply(.json(answer.status, answer.body))
                }
            }
        }
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import Foundation

/// The page listener's HTTP routes (PROTOCOL.md 1, 4), on the service thread.
extension ServiceLoop {
    func routeMain(_ exchange: HTTPExchange) {
        switch exchange.path {
        case "/dsbridge/call", "/dsbridge/session":
            routeEndpoint(exchange)
        case "/dsbridge":
            respond(exchange, .text(400, "expected a WebSocket upgrade offering subprotocol dsbridge.v1"))
        default:
            guard exchange.method == .get || exchange.method == .head else {
                return respond(exchange, closing(.text(405, "only GET and HEAD are served here")))
            }
            serveStatic(exchange)
        }
    }

    /// The two POST endpoints: method, origin, then the endpoint's own checks (PROTOCOL.md
    /// 4: 405, 403, 401, 413, 400). Every answer to an allowed cross-origin request carries
    /// the CORS headers, errors included.
    private func routeEndpoint(_ exchange: HTTPExchange) {
        let origin = exchange.headers["origin"]
        exchange.extraHeaders = origins.corsHeaders(for: origin)
        if exchange.method == .options {
            guard origins.allows(origin) else { return respond(exchange, .text(403, "origin not allowed")) }
            return respond(exchange, HTTPAnswer(status: 204, contentType: "text/plain", body: []))
        }
        guard exchange.method == .post else { return respond(exchange, Self.methodNotAllowed()) }
        guard origins.allows(origin) else {
            logger.info("request refused: origin not allowed", metadata: ["bridge.peer": "\(exchange.peer)"])
            return respond(exchange, closing(.text(403, "origin not allowed")))
        }
        switch exchange.path {
        case "/dsbridge/call":
            // In a cluster another node may hold the session: the body is read and passed on.
            guard let token = exchange.headers["x-dsbridge-token"], server.cluster != nil || bridge.session(token: token) != nil
            else {
                return respond(exchange, closing(.text(401, "unknown or missing X-DSBridge-Token")))
            }
            expectBody(exchange) { [self] exchange in
                syncCall(exchange, token: token)
            }
        default:
            expectBody(exchange) { [self] exchange in
                createSession(exchange)
            }
        }
    }

    private static func methodNotAllowed() -> HTTPAnswer {
        var a = HTTPAnswer.text(405, "use POST")
        a.headers.append(("Allow", "POST, OPTIONS"))
        a.closeAfter = true
        return a
    }

    /// An early answer to a request whose body is not read: close after it.
    private func closing(_ answer: HTTPAnswer) -> HTTPAnswer {
        var a = answer
        a.closeAfter = true
        return a
    }

    private func syncCall(_ exchange: HTTPExchange, token: String) {
        var request: SyncCallRequest
        do {
            request = try SyncCallRequest(
                body: exchange.body, afterHeader: exchange.headers["x-dsbridge-after"], maxDepth: bridge.configuration.maxDepth)
            request.trace = exchange.headers["traceparent"].flatMap { TraceContext(traceparent: $0) }
        } catch {
            return respond(exchange, .text(400, error.reason))
        }
        let call: Bridge.SyncCallContinuation
        switch bridge.startSyncCall(token: token, request: request) {
        case .unknownToken:
            guard let cluster = server.cluster else { return respond(exchange, .text(401, "unknown X-DSBridge-Token")) }
            let reply = respondLater(exchange)
            return cluster.forwardSyncCall(
                token: token, body: exchange.body, afterHeader: exchange.headers["x-dsbridge-after"],
                traceparent: exchange.headers["traceparent"]
            ) {
                switch $0 {
                case .answered(let body): reply(.json(200, bytes: body))
                case .unknownToken: reply(.text(401, "unknown X-DSBridge-Token"))
                case .unavailable(let why): reply(.text(503, why))
                }
            }
        case .answered(let result):
            return respond(exchange, .json(200, bytes: SyncCallRequest.answerBody(result)))
        case .later(let answer):
            let reply = respondLater(exchange)
            return answer.whenAnswered { reply(.json(200, bytes: SyncCallRequest.answerBody($0))) }
        case .needsWorker(let continuation):
            call = continuation
        }
        let reply = respondLater(exchange)
        let bridge = self.bridge
        Task {
            reply(.json(200, bytes: SyncCallRequest.answerBody(await bridge.finishSyncCall(call))))
        }
    }

    /// Runs the authenticator's and the `opened` hook's user code: on a worker, never on
    /// the network thread.
    private func createSession(_ exchange: HTTPExchange) {
        let reply = respondLater(exchange)
        let bridge = self.bridge
        let logger = self.logger
        let peer = exchange.peer
        let origin = exchange.headers["origin"]
        let request = SessionRequest(auth: exchange.headers["x-dsbridge-auth"], headers: exchange.headers.dictionary, peerAddress: peer)
        let refused = closing(.text(401, "X-DSBridge-Auth refused"))
        OffloadedWork.queue.async {
            guard bridge.authorizes(request) else {
                logger.info("session request refused: auth", metadata: ["bridge.peer": "\(peer)"])
                return reply(refused)
            }
            do throws(SessionRefusal) {
                let session = try bridge.createSession(peerAddress: peer, origin: origin, tags: bridge.tags(for: request))
                // In a cluster the token is handed out once any node could resume it.
                session.whenRecorded {
                    reply(.json(200, ["session": .string(session.id), "token": .string(session.token)]))
                }
            } catch {
                reply(.text(429, error.reason))
            }
        }
    }

    /// Resolves and reads the file on a worker: a slow disk, or a FIFO someone left in the
    /// web root, must not stall the network thread (only regular files are served).
    private func serveStatic(_ exchange: HTTPExchange) {
        let reply = respondLater(exchange)
        let files = staticFiles
        // The path is percent-decoded once already (PROTOCOL.md 1.2, ServiceLoop+PlainHTTP);
        // decoding again would turn %2541 into A.
        let path = exchange.path
        let raw = exchange.rawTarget
        let head = exchange.method == .head
        OffloadedWork.queue.async {
            reply(files.answer(path, rawTarget: raw, head: head))
        }
    }
}

// SPDX-License-Identifier: MIT
import DSBridge

/// An HTTP request's answer and body on both listeners (service thread): answering now or
/// from another thread, waiting for a body and its deadline. Requests are read and routed
/// in ServiceLoop+PlainHTTP.
extension ServiceLoop {
    /// The 413 for a body over the exchange's limit (JSON on the admin listener).
    func tooLarge(_ exchange: HTTPExchange) -> HTTPAnswer {
        var a =
            exchange.adminListener
            ? HTTPAnswer.json(413, ["error": "too large"])
            : HTTPAnswer.text(413, "request body larger than \(exchange.bodyLimit) bytes")
        a.closeAfter = true
        return a
    }

    /// Sets the answer and writes it at once (service thread).
    func respond(_ exchange: HTTPExchange, _ answer: HTTPAnswer) {
        exchange.answer = answer
        if let connection = exchange.connection { plainAnswerReady(connection, exchange) }
    }

    /// Answers from another thread.
    func respondLater(_ exchange: HTTPExchange) -> @Sendable (HTTPAnswer) -> Void {
        exchange.awaitingAnswer = true
        let inbox = server.inbox
        let id = exchange.id
        return { answer in inbox.post(.httpAnswer(id, answer)) }
    }

    /// A drain closed the socket of `sessionID`: admin calls waiting on it answer 503.
    func answerAdminCallsDraining(_ sessionID: String?) {
        guard let sessionID else { return }
        for exchange in exchanges.values where exchange.adminCallSession == sessionID && exchange.awaitingAnswer {
            exchange.awaitingAnswer = false
            respond(exchange, .json(503, ["error": "draining"]))
        }
    }

    /// Waits for the body, refusing it up front when Content-Length is over the limit.
    func expectBody(_ exchange: HTTPExchange, then handler: @escaping (HTTPExchange) -> Void) {
        if let length = exchange.headers.contentLengthNumber, length > exchange.bodyLimit {
            respond(exchange, tooLarge(exchange))
            return
        }
        if exchange.headers.has("transfer-encoding") {
            // Chunked request bodies are not read; browsers send Content-Length.
            var a = HTTPAnswer.text(411, "a request body needs Content-Length (chunked bodies are not accepted)")
            a.closeAfter = true
            respond(exchange, a)
            return
        }
        if !exchange.headers.has("content-length") {
            // No body.
            handler(exchange)
            return
        }
        // The connection's machine reads the body (within `bodyTimeoutMs`, 408 after) and
        // hands it over (ServiceLoop+PlainHTTP).
        exchange.onBody = handler
    }
}

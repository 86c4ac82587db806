// SPDX-License-Identifier: MIT
import DSBridge
import Dispatch

/// Service-thread state of one HTTP request: what was asked, the body so far, and the
/// answer once it is known.
final class HTTPExchange {
    let id: UInt64
    /// The connection carrying it (either listener; under TLS fed by libwebsockets). Strong: the
    /// connection lets go of its exchange when the exchange is done or the connection
    /// closes (``PlainHTTPConnection/exchange``), which ends the cycle. (A weak reference
    /// here gave every connection a side table: each retain and release of it took the
    /// slow path, about a tenth of a sync call's user time.)
    var connection: PlainHTTPConnection?
    let method: HTTPMethod
    let path: String
    /// What to do with the body once it is complete.
    var onBody: ((HTTPExchange) -> Void)?
    /// The request body, while its handler (``onBody``) runs.
    var body: [UInt8] = []
    /// The largest body accepted (`maxMessageBytes`; the admin listener: `replayMaxBytes`).
    var bodyLimit = 0
    var answer: HTTPAnswer?
    /// An answer will come from another thread (`respondLater`).
    var awaitingAnswer = false
    /// For an admin call: the session it calls into.
    var adminCallSession: String?
    /// Headers every answer to this request carries (CORS).
    var extraHeaders: [(String, String)] = []
    /// The request's headers, read from its head as sent.
    let headers: RequestHeaders
    let peer: String
    /// The request target as sent (`nil` for a refused head).
    var rawTarget: RawRequestTarget?
    /// The request came to the admin listener.
    var adminListener = false

    init(id: UInt64, method: HTTPMethod, path: String, peer: String, headers: RequestHeaders = RequestHeaders()) {
        self.id = id
        self.headers = headers
        self.method = method
        self.path = path
        self.peer = peer
    }
}

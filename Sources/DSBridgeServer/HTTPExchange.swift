// SPDX-License-Identifier: MIT
import DSBridge
import Dispatch

/// Service-thread state of one HTTP request: what was asked, the body so far, and the
/// answer once it is known.
final class HTTPExchange {
    let id: UInt64
    /// The libwebsockets connection carrying it (TLS, the admin listener), or `nil` when
    /// dsbridged reads it itself (``connection``).
    let wsi: OpaquePointer?
    /// The plain-HTTP connection carrying it (page port without TLS). Strong: the
    /// connection lets go of its exchange when the exchange is done or the connection
    /// closes (``PlainHTTPConnection/exchange``), which ends the cycle. (A weak reference
    /// here gave every connection a side table: each retain and release of it took the
    /// slow path, about a tenth of a sync call's user time.)
    var connection: PlainHTTPConnection?
    let method: HTTPMethod
    let path: String
    /// What to do with the body once it is complete.
    var onBody: ((HTTPExchange) -> Void)?
    /// When the whole body must have arrived (`bodyTimeoutMs` after the headers).
    var bodyDeadline: UInt64?
    var body: [UInt8] = []
    var bodyTooLarge = false
    /// The largest body accepted (`maxMessageBytes`; the admin listener: `replayMaxBytes`).
    var bodyLimit = 0
    /// lws reported the end of the body (`HTTP_BODY_COMPLETION`).
    var bodyComplete = false
    /// The answer closing the connection was written while the body still arrived: the
    /// write side is shut down and the rest is read and dropped (``Lingering``).
    var lingering: Lingering?
    var answer: HTTPAnswer?
    /// An answer will come from another thread (`respondLater`).
    var awaitingAnswer = false
    /// For an admin call: the session it calls into.
    var adminCallSession: String?
    /// Headers every answer to this request carries (CORS).
    var extraHeaders: [(String, String)] = []
    var headersSent = false
    var bodyOffset = 0
    /// Captured request headers (lws frees them once the body starts), or the head
    /// dsbridged read itself.
    let headers: RequestHeaders
    let peer: String
    /// The query's arguments as lws split and decoded them (`a=1`, `b= c`).
    var queryArguments: [String] = []
    /// The request target as sent (plain HTTP; under TLS libwebsockets has normalised it).
    var rawTarget: RawRequestTarget?
    /// The request came to the admin listener.
    var adminListener = false

    init(id: UInt64, wsi: OpaquePointer?, method: HTTPMethod, path: String, peer: String, headers: RequestHeaders = RequestHeaders()) {
        self.id = id
        self.headers = headers
        self.wsi = wsi
        self.method = method
        self.path = path
        self.peer = peer
    }
}

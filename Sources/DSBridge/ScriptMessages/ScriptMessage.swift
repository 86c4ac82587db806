// SPDX-License-Identifier: MIT

/// A message a page posted with `window.webkit.messageHandlers.NAME.postMessage(body)`
/// (PROTOCOL.md 9.2): dsbridged's `WKScriptMessage`.
public struct ScriptMessage: Sendable {
    /// The handler name the page posted to (`WKScriptMessage.name`).
    public let name: String
    /// The posted value (`WKScriptMessage.body`), as JSON: the page shim refuses anything
    /// that is not JSON before it is sent.
    public let body: JSONValue
    /// The page session that posted it; keep it to call the page later
    /// (``BridgeSession/callFunction(_:_:timeout:)``). It plays the part of
    /// `WKScriptMessage.webView` and `frameInfo`.
    public let session: BridgeSession

    public init(name: String, body: JSONValue, session: BridgeSession) {
        self.name = name
        self.body = body
        self.session = session
    }
}

/// Receives the messages pages post to one handler name and replies to each: dsbridged's
/// `WKScriptMessageHandlerWithReply`. Register it with
/// ``Bridge/addScriptMessageHandler(_:name:)``.
///
/// | WebKit (in an app) | dsbridged |
/// |---|---|
/// | `userContentController(_:didReceive:) async -> (Any?, String?)` | ``userContentController(_:didReceive:)`` `async throws -> JSONValue?` |
/// | reply `(value, nil)` | return `value` (`nil` answers `null`) |
/// | reply `(nil, "text")`: the page's promise rejects | throw: the page's promise rejects (`failed`) |
/// | `message.webView` | ``ScriptMessage/session`` |
///
/// Handlers run off the server's network thread, each message of a session in the order
/// posted; the page's promise waits for the reply, so keep replies quick and make longer
/// work (such as calling the page back) in a task of its own.
public protocol ScriptMessageHandlerWithReply: Sendable {
    /// Handles one message and returns the reply for the page's promise.
    /// - Parameter bridge: the bridge the handler is registered with (WebKit passes the
    ///   `WKUserContentController`).
    /// - Returns: the reply; `nil` resolves the page's promise with `null`.
    /// - Throws: any error: the page's promise rejects with error kind `failed` and a
    ///   message naming the handler and the error.
    func userContentController(_ bridge: Bridge, didReceive message: ScriptMessage) async throws -> JSONValue?
}

/// A ``ScriptMessageHandlerWithReply`` made of a closure
/// (``Bridge/addScriptMessageHandler(name:_:)``).
struct ClosureScriptMessageHandler: ScriptMessageHandlerWithReply {
    let body: @Sendable (ScriptMessage) async throws -> JSONValue?

    func userContentController(_ bridge: Bridge, didReceive message: ScriptMessage) async throws -> JSONValue? {
        try await body(message)
    }
}

// SPDX-License-Identifier: MIT

extension Bridge {
    /// Registers a WebViewJavascriptBridge handler that pages call with
    /// `WebViewJavascriptBridge.callHandler(name, data, responseCallback)` (the original's
    /// `[bridge registerHandler:@"name" handler:^(id data, WVJBResponseCallback responseCallback) {…}]`).
    /// One registry serves every session; ``BridgeSession/current`` names the caller's.
    ///
    /// ```swift
    /// bridge.registerHandler("testObjcCallback") { data, responseCallback in
    ///     responseCallback("Response from testObjcCallback")
    /// }
    /// ```
    public func registerHandler(_ handlerName: String, handler: @escaping WVJBHandler) {
        registry.webViewJavascriptBridgeHandlers.register(handlerName, handler: handler)
    }

    /// Removes a WebViewJavascriptBridge handler (the original's `removeHandler:`).
    public func removeHandler(_ handlerName: String) {
        registry.webViewJavascriptBridgeHandlers.remove(handlerName)
    }
}

extension BridgeSession {
    /// Calls the page's WebViewJavascriptBridge handler `handlerName` with `data` and returns
    /// what it passed to its `responseCallback` (the original's
    /// `[bridge callHandler:@"name" data:data responseCallback:^(id responseData) {…}]`).
    /// An `invoke` of `_wvjb.handle` with args `[{"handlerName", "data"}]` (PROTOCOL.md 9.1),
    /// held until the page is ready, so a call made before the page registered its handlers
    /// reaches them.
    /// - Throws: ``JavaScriptCallError/call(_:)`` as ``call(_:with:thatReturns:timeout:)``:
    ///   ``NativeCallError/javaScript(_:)`` `no handler NAME` when the page has no such
    ///   handler, ``NativeCallError/timeout`` when it never responds within `timeout`,
    ///   ``NativeCallError/sessionEnded`` when the page went away; ``JavaScriptCallError/cancelled``.
    public func callHandler(
        _ handlerName: String, data: JSONValue = .null, timeout: Duration = BridgeSession.defaultJavaScriptTimeout
    ) async throws(JavaScriptCallError) -> JSONValue {
        try await call(Self.wvjbHandle, with: [Self.wvjbMessage(handlerName, data)], thatReturns: JSONValue.self, timeout: timeout)
    }

    /// ``callHandler(_:data:timeout:)`` with a completion, as the original is written:
    /// `responseCallback` runs once, with the response or the error.
    public func callHandler(
        _ handlerName: String, data: JSONValue = .null, timeout: Duration = BridgeSession.defaultJavaScriptTimeout,
        responseCallback: @escaping @Sendable (Result<JSONValue, JavaScriptCallError>) -> Void
    ) {
        call(
            Self.wvjbHandle, with: [Self.wvjbMessage(handlerName, data)], thatReturns: JSONValue.self, timeout: timeout,
            completion: responseCallback)
    }

    /// The page-side method that runs WebViewJavascriptBridge handlers.
    static let wvjbHandle = MethodName.webViewJavascriptBridgeNamespace + ".handle"

    static func wvjbMessage(_ handlerName: String, _ data: JSONValue) -> JSONValue {
        .object(["handlerName": .string(handlerName), "data": data])
    }
}

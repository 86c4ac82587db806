// SPDX-License-Identifier: MIT

extension BridgeSession {
    /// The page method that runs page functions by path (PROTOCOL.md 9.2).
    static let callFunctionMethod = "_page.callFunction"

    /// Calls the page function at `path` (a dot-separated path of own properties from
    /// `window`, such as `"wadInterface.fromNative"` or `"bridge.sayHello"`) with `args`,
    /// and returns its result; a promise the function returns is awaited by the page.
    /// WebKit: `callAsyncJavaScript(_:arguments:in:contentWorld:)`, but only a path is
    /// sent, never source text, and `web/webkit.js` answers it (`_page.callFunction`).
    ///
    /// Like every native-initiated call it is held until the page is ready (`webkit.js`
    /// reports it once the document is parsed).
    ///
    /// ```swift
    /// try await session.callFunction("wadInterface.fromNative", 7, true, ["ok": 1])
    /// ```
    /// - Throws: ``JavaScriptCallError``, as ``call(_:with:thatReturns:timeout:)``:
    ///   `.call(.javaScript(text))` when the page answers with an error (`not a function
    ///   PATH`, the function threw, the page forbids the call), `.call(.timeout)`,
    ///   `.call(.sessionEnded)`, `.cancelled`.
    @discardableResult
    public func callFunction(
        _ path: String, _ args: JSONValue..., timeout: Duration = BridgeSession.defaultJavaScriptTimeout
    ) async throws(JavaScriptCallError) -> JSONValue {
        try await callFunction(path, arguments: args, timeout: timeout)
    }

    /// ``callFunction(_:_:timeout:)`` with the arguments in an array.
    @discardableResult
    public func callFunction(
        _ path: String, arguments: [JSONValue], timeout: Duration = BridgeSession.defaultJavaScriptTimeout
    ) async throws(JavaScriptCallError) -> JSONValue {
        try await call(Self.callFunctionMethod, with: [.string(path)] + arguments, thatReturns: JSONValue.self, timeout: timeout)
    }
}

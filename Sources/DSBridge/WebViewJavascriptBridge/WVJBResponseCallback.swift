// SPDX-License-Identifier: MIT

/// The `responseCallback` a WebViewJavascriptBridge handler answers through (the original's
/// `WVJBResponseCallback`). Call it once, now or later, from any thread.
///
/// - The first call answers the page: its `callHandler` callback gets the value. Later calls
///   are ignored.
/// - A handler that never calls it leaves the page's call running until the session ends
///   (it counts toward `maxAsyncCalls` meanwhile); the page's callback never runs, as in the app.
/// - When the page passed no callback, the answer is dropped.
public struct WVJBResponseCallback: Sendable {
    private let completion: ExposedCompletion

    init(_ completion: ExposedCompletion) {
        self.completion = completion
    }

    /// Answers with `responseData` (any `Encodable`, ``JSONValue`` included).
    public func callAsFunction<T: Encodable>(_ responseData: T) {
        completion(responseData)
    }

    /// Answers with `null` (the original's `responseCallback(nil)`).
    public func callAsFunction() {
        completion.deliver(.null)
    }

    /// Ends the page's call with an error instead of a value (no counterpart in the original):
    /// the page's callback does not run and the shim logs `message` as a warning.
    public func fail(_ message: String) {
        completion.fail(message)
    }
}

/// A native WebViewJavascriptBridge handler (the original's `WVJBHandler`): the page's
/// `data` (``JSONValue/null`` when it sent none) and the callback to answer through.
/// ``BridgeSession/current`` names the calling page's session while the handler runs.
public typealias WVJBHandler = @Sendable (_ data: JSONValue, _ responseCallback: WVJBResponseCallback) -> Void

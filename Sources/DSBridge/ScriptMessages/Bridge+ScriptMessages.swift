// SPDX-License-Identifier: MIT

extension Bridge {
    /// Registers `handler` for the messages pages post to `name` with
    /// `window.webkit.messageHandlers[name].postMessage(body)` (PROTOCOL.md 9.2), replacing
    /// an earlier handler of that name. WebKit: `WKUserContentController.addScriptMessageHandler(_:contentWorld:name:)`
    /// (there is one content world here: the page's).
    ///
    /// A message posted to a name without a handler fails at once: the page's promise
    /// rejects with error kind `methodNotFound`.
    public func addScriptMessageHandler(_ handler: any ScriptMessageHandlerWithReply, name: String) {
        registry.scriptMessages.add(handler, name: name)
    }

    /// Registers a closure as the handler of `name`: it gets each message and returns the
    /// reply (`nil` = `null`); a thrown error rejects the page's promise.
    ///
    /// ```swift
    /// bridge.addScriptMessageHandler(name: "echo") { message in message.body }
    /// ```
    public func addScriptMessageHandler(
        name: String, _ body: @escaping @Sendable (ScriptMessage) async throws -> JSONValue?
    ) {
        registry.scriptMessages.add(ClosureScriptMessageHandler(body: body), name: name)
    }

    /// Removes the handler of `name`. WebKit: `removeScriptMessageHandler(forName:)`.
    public func removeScriptMessageHandler(forName name: String) {
        registry.scriptMessages.remove(name: name)
    }

    /// The names that have a script message handler, sorted.
    public var scriptMessageHandlerNames: [String] { registry.scriptMessages.names }
}

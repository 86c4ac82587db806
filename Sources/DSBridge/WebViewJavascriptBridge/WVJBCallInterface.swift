// SPDX-License-Identifier: MIT

/// `_wvjb.call`, the internal method behind WebViewJavascriptBridge's page-side
/// `callHandler` (PROTOCOL.md 9.1). It is an asynchronous method, so the dispatcher's rules
/// apply unchanged: `ret ""` at once, then the handler's response as one `cb` `complete:true`
/// (dropped without a stub). A call naming no registered handler is refused before anything
/// runs: `ret` code -1 `methodNotFound`. ``InterfaceRegistry`` owns it and ``CallRoute``
/// routes `_wvjb.call` to it; the `_wvjb` namespace itself is reserved.
struct WVJBCallInterface: ExposedInterface {
    /// The one page-callable method of the `_wvjb` namespace.
    static let methodName = "call"
    static var exposedMethods: [String: ExposedMethodKind] { [methodName: .asynchronous] }

    let handlers: WVJBHandlerRegistry

    func callSynchronousMethod(named name: String, with argument: JSONValue) async throws -> JSONValue {
        throw ExposedCallError.methodNotFound(name)
    }

    func callAsynchronousMethod(named name: String, with argument: JSONValue, completion: ExposedCompletion) async throws {
        _ = try callAsynchronousMethodWithoutSuspending(named: name, with: argument, completion: completion)
    }

    /// Runs the handler on the calling thread (a worker: this method is not `@nonblocking`).
    func callAsynchronousMethodWithoutSuspending(
        named name: String, with argument: JSONValue, completion: ExposedCompletion
    ) throws -> Bool {
        guard name == Self.methodName else { throw ExposedCallError.methodNotFound(name) }
        guard case .object(let message) = argument, case .string(let handlerName)? = message["handlerName"] else {
            throw ExposedCallError.badArgument(
                method: "_wvjb.call", expected: #"{"handlerName": STRING, "data": ANY}"#, detail: "got \(argument.description.prefix(200))")
        }
        guard let handler = handlers.handler(named: handlerName) else {
            throw ExposedCallError(
                kind: .methodNotFound,
                message: "no WebViewJavascriptBridge handler \"\(handlerName.prefix(200))\" is registered (bridge.registerHandler)")
        }
        handler(message["data"] ?? .null, WVJBResponseCallback(completion))
        return true
    }
}

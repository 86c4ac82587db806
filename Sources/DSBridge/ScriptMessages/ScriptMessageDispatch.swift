// SPDX-License-Identifier: MIT
import Synchronization

/// Why a script message handler failed; the page's promise rejects with this text
/// (error kind `failed`).
public struct ScriptMessageHandlerFailure: Error, Sendable, CustomStringConvertible {
    /// The handler name the page posted to.
    public let name: String
    /// What the handler threw, as text.
    public let underlying: String

    public var description: String { "handler \"\(name)\": \(underlying)" }
}

/// The internal method `_webkit.postMessage` (PROTOCOL.md 9.2): a synchronous method whose
/// answer is the reply of the script message handler registered under the posted name.
/// It is routed like any synchronous interface method, so it runs off the network thread
/// and follows every rule of PROTOCOL.md 2.4; the namespace itself is reserved.
final class ScriptMessageDispatch: ExposedInterface {
    /// The one method of the `_webkit` namespace.
    static let methodName = "postMessage"
    static var exposedMethods: [String: ExposedMethodKind] { [methodName: .synchronous] }

    private let handlers = Mutex<[String: any ScriptMessageHandlerWithReply]>([:])

    /// Registers `handler` under `name`, replacing an earlier one.
    func add(_ handler: any ScriptMessageHandlerWithReply, name: String) {
        handlers.withLock { $0[name] = handler }
    }

    /// Removes the handler of `name`.
    func remove(name: String) {
        _ = handlers.withLock { $0.removeValue(forKey: name) }
    }

    /// The names with a handler, sorted.
    var names: [String] { handlers.withLock { $0.keys.sorted() } }

    /// The handler of `name`, matched byte for byte (as method names are).
    func handler(named name: String) -> (any ScriptMessageHandlerWithReply)? {
        handlers.withLock { table in
            guard let i = table.index(forKey: name), InterfaceRegistry.sameBytes(table.keys[i], name) else { return nil }
            return table.values[i]
        }
    }

    /// `data` is `{"name": NAME, "body": BODY}`; the session is the calling one
    /// (``BridgeSession/current``, set while interface methods run).
    /// - Throws: ``ExposedCallError`` `badArgument` for another shape, `methodNotFound` when
    ///   no handler has that name; ``ScriptMessageHandlerFailure`` when the handler throws.
    func callSynchronousMethod(named method: String, with data: JSONValue) async throws -> JSONValue {
        guard method == Self.methodName else { throw ExposedCallError.methodNotFound(method) }
        guard case .object(let o) = data, case .string(let name)? = o["name"] else {
            throw ExposedCallError(kind: .badArgument, message: "_webkit.postMessage needs {\"name\": string, \"body\": any JSON}, got \(data.kindName)")
        }
        guard let handler = handler(named: name) else {
            throw ExposedCallError(kind: .methodNotFound, message: "no script message handler \"\(name.prefix(200))\" is registered")
        }
        guard let session = BridgeSession.current else {
            throw ExposedCallError(kind: .methodNotFound, message: "_webkit.postMessage runs only in a page session")
        }
        let message = ScriptMessage(name: name, body: o["body"] ?? .null, session: session)
        do {
            return try await handler.userContentController(session.bridge, didReceive: message) ?? .null
        } catch {
            throw ScriptMessageHandlerFailure(name: name, underlying: String(describing: error))
        }
    }

    func callAsynchronousMethod(named name: String, with argument: JSONValue, completion: ExposedCompletion) async throws {
        throw ExposedCallError.methodNotFound(name)
    }
}

// SPDX-License-Identifier: MIT

/// The internal methods `_hotwire.receive` and `_hotwire.components` (PROTOCOL.md 9.4): one
/// instance per page session (made on its first such call, dropped when it ends), holding
/// that session's component instances.
final class SessionComponents: ExposedInterface {
    /// The per-session factory id of this interface (registered factories count up from 1).
    static let factoryID = -46
    static let receiveMethod = "receive"
    static let componentsMethod = "components"
    static var exposedMethods: [String: ExposedMethodKind] { [receiveMethod: .synchronous, componentsMethod: .synchronous] }

    /// The route of the `_hotwire` methods.
    static func source(_ registry: BridgeComponentRegistry) -> InterfaceSource {
        .perSession(id: factoryID, make: { SessionComponents(session: $0, registry: registry) })
    }

    let registry: BridgeComponentRegistry
    let host: ComponentHost

    init(session: BridgeSession, registry: BridgeComponentRegistry) {
        self.registry = registry
        host = ComponentHost(destination: BridgeDestination(session: session), delegate: PageReplies(session: session))
    }

    /// `receive`: the component named by the message gets it (its instance made first);
    /// `components`: the registered names.
    /// - Throws: ``ExposedCallError`` `badArgument` for a malformed message,
    ///   `methodNotFound` for a component name nothing is registered under.
    func callSynchronousMethod(named method: String, with data: JSONValue) async throws -> JSONValue {
        switch method {
        case Self.componentsMethod:
            return .array(registry.names.map(JSONValue.string))
        case Self.receiveMethod:
            let message = try Message(wire: data)
            guard let type = registry.type(named: message.component) else {
                throw ExposedCallError(
                    kind: .methodNotFound, message: "no bridge component \"\(message.component.prefix(200))\" is registered")
            }
            await host.deliver(message, to: type)
            return .null
        default:
            throw ExposedCallError.methodNotFound(method)
        }
    }

    func callAsynchronousMethod(named name: String, with argument: JSONValue, completion: ExposedCompletion) async throws {
        throw ExposedCallError.methodNotFound(name)
    }
}

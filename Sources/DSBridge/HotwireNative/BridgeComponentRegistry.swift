// SPDX-License-Identifier: MIT
import OrderedCollections
import Synchronization

/// The bridge component classes pages can reach, by name (PROTOCOL.md 9.4). Safe to use from
/// any thread; a page session makes its instances from the classes registered when its
/// first message to each name arrives.
public final class BridgeComponentRegistry: Sendable {
    /// The longest name accepted, in UTF-8 bytes.
    public static let maxNameBytes = 128

    private let types = Mutex<OrderedDictionary<String, BridgeComponent.Type>>([:])

    init() {}

    /// Registers `component` under its `name`, replacing a class registered under that name.
    /// - Throws: ``BridgeComponentNameError`` for an empty or unusable name.
    public func register(_ component: BridgeComponent.Type) throws(BridgeComponentNameError) {
        let name = component.name
        let type = String(describing: component)
        if name.isEmpty { throw .empty(type: type) }
        if name.utf8.count > Self.maxNameBytes { throw .tooLong(name: name, type: type) }
        let refused = name.unicodeScalars.contains { s in
            s.properties.isWhitespace || s.properties.generalCategory == .control || s == "[" || s == "]"
        }
        if refused { throw .invalid(name: name, type: type) }
        types.withLock { $0[name] = component }
    }

    /// Removes the class registered under `name`.
    public func unregister(_ name: String) {
        _ = types.withLock { $0.removeValue(forKey: name) }
    }

    /// The registered names, in registration order.
    public var names: [String] { types.withLock { Array($0.keys) } }

    /// The class registered under exactly these bytes.
    func type(named name: String) -> BridgeComponent.Type? {
        types.withLock { table in
            guard let index = table.index(forKey: name), InterfaceRegistry.sameBytes(table.keys[index], name) else { return nil }
            return table.values[index]
        }
    }
}

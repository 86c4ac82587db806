// SPDX-License-Identifier: MIT
import OrderedCollections
import Synchronization

/// Why a component class cannot be registered (its name is checked as interface names are).
public enum BridgeComponentNameError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class does not override `class var name`.
    case empty(type: String)
    /// The name has whitespace, a control character or a square bracket: pages learn the
    /// names from a space-separated list in brackets (`bridge-components: [form menu]`).
    case invalid(name: String, type: String)
    /// The name is longer than ``BridgeComponentRegistry/maxNameBytes``.
    case tooLong(name: String, type: String)

    public var description: String {
        switch self {
        case .empty(let type): return "\(type) has no name: override `class var name` with the page controller's component name"
        case .invalid(let name, let type):
            return "\(type)'s name \"\(name)\" has whitespace, a control character or [ ]; use the page's `static component` name"
        case .tooLong(let name, let type):
            return "\(type)'s name \"\(name.prefix(40))…\" is longer than \(BridgeComponentRegistry.maxNameBytes) bytes"
        }
    }
}

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

extension Bridge {
    /// Registers a bridge component class (hotwire-native-ios' `Hotwire.registerBridgeComponents`):
    /// pages reach it through web/hotwire.js under `component.name`.
    /// - Throws: ``BridgeComponentNameError`` for an empty or unusable name.
    public func register(component: BridgeComponent.Type) throws(BridgeComponentNameError) {
        try registry.bridgeComponents.register(component)
    }

    /// Registers several bridge component classes, stopping at the first refused name.
    public func register(components: [BridgeComponent.Type]) throws(BridgeComponentNameError) {
        for component in components { try register(component: component) }
    }
}

// SPDX-License-Identifier: MIT
import Synchronization

/// The interfaces pages can call, one per namespace (`""` = no namespace). Safe to use
/// from any thread; changes apply to calls that start afterwards.
public final class InterfaceRegistry: Sendable {
    struct Entry: Sendable {
        let interface: any ExposedInterface
        let methods: [String: ExposedMethodKind]
    }

    private let entries = Mutex<[String: Entry]>([:])

    public init() {}

    /// Registers `interface` under `namespace` (`nil` or `""` = no namespace; multi-level
    /// names such as `"a.b"` are allowed). Re-adding a namespace replaces its interface.
    public func addInterface(_ interface: any ExposedInterface, by namespace: String? = nil) {
        let key = namespace ?? ""
        let entry = Entry(interface: interface, methods: type(of: interface).exposedMethods)
        entries.withLock { $0[key] = entry }
    }

    /// Removes the interface of `namespace` (`nil` or `""` = no namespace).
    public func removeInterface(by namespace: String? = nil) {
        _ = entries.withLock { $0.removeValue(forKey: namespace ?? "") }
    }

    /// The interface of `namespace` and the kind of its method `name`, if both exist.
    public func lookup(_ method: MethodName) -> (interface: any ExposedInterface, kind: ExposedMethodKind)? {
        entries.withLock { table in
            guard let entry = table[method.namespace], let kind = entry.methods[method.name] else { return nil }
            return (entry.interface, kind)
        }
    }

    /// The namespaces that have an interface, sorted.
    public var namespaces: [String] {
        entries.withLock { $0.keys.sorted() }
    }
}

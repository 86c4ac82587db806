// SPDX-License-Identifier: MIT

/// Why an interface could not be registered.
public struct InterfaceRegistrationError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Reason: Sendable, Equatable {
        case reservedNamespace(String)
    }

    private let reason: Reason

    /// `namespace` is one of ``MethodName/reservedNamespaces`` (`_dsb`, `_wvjb`, `_webkit`,
    /// `_page`): calls under it go to the bridge's internal methods, never to an interface.
    public static func reservedNamespace(_ namespace: String) -> InterfaceRegistrationError {
        InterfaceRegistrationError(reason: .reservedNamespace(namespace))
    }

    public var description: String {
        switch reason {
        case .reservedNamespace(let namespace):
            return "namespace \"\(namespace)\" is reserved for the bridge's internal methods "
                + "(\(MethodName.reservedNamespaces.sorted().joined(separator: ", "))); register the interface under another namespace"
        }
    }
}

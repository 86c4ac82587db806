// SPDX-License-Identifier: MIT

/// Why a component class cannot be registered (its name is checked as interface names are).
public enum BridgeComponentNameError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class does not override `class var name`.
    case empty(type: String)
    /// The name has whitespace, a control character or a square bracket: pages learn the
    /// names from a space-separated list in brackets (`bridge-components: [form menu]`).
    case invalid(name: String, type: String)
    /// The name is longer than ``BridgeComponentRegistry/maxNameBytes``.
    case tooLong(name: String, type: String)

    /// What is wrong with the name and how to fix it.
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

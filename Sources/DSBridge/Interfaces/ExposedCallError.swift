// SPDX-License-Identifier: MIT

/// Why an interface refused a call before running the method. Thrown by code the
/// `@Exposed` macro generates; the dispatcher maps it to the wire `error.kind`.
public struct ExposedCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as the wire names it.
    public enum Kind: String, Sendable {
        /// The interface has no such method (wire kind `methodNotFound`).
        case methodNotFound
        /// The call's `data` does not decode as the method's parameter (wire kind `badArgument`).
        case badArgument
    }

    public let kind: Kind
    /// A sentence for people: what was wrong and what to send instead.
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// `name` is not a method of this interface.
    public static func methodNotFound(_ name: String) -> ExposedCallError {
        ExposedCallError(kind: .methodNotFound, message: "method \"\(name)\" is not exposed by this interface")
    }

    /// The argument of `method` did not decode as `expected`.
    public static func badArgument(method: String, expected: String, detail: String) -> ExposedCallError {
        ExposedCallError(kind: .badArgument, message: "argument of \"\(method)\" must be \(expected): \(detail)")
    }

    public var description: String { message }
}

// SPDX-License-Identifier: MIT

/// Decodes call arguments for code the `@Exposed` macro generates.
public enum ExposedArgument {
    /// Decodes the call's `data` as the parameter type of `method`.
    /// - Throws: ``ExposedCallError`` of kind `badArgument`, saying what was expected.
    public static func decode<T: Decodable>(_ type: T.Type, from argument: JSONValue, method: String) throws(ExposedCallError) -> T {
        do {
            return try JSONValueCoding.decode(T.self, from: argument)
        } catch {
            throw ExposedCallError.badArgument(
                method: method, expected: String(describing: T.self), detail: "got \(argument.kindName)")
        }
    }
}

/// Encodes method results for code the `@Exposed` macro generates.
public enum ExposedResult {
    /// What a method without a result answers: `""`, as DSBridge does.
    public static var void: JSONValue { .string("") }

    /// Encodes a method's result. `nil` (an empty `Optional`) answers `""`, as DSBridge does;
    /// a ``JSONValue`` is answered as is, `.null` included.
    public static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        // A JSONValue is never an Optional: skip the (costlier) Optional check for it.
        if T.self == JSONValue.self, let v = value as? JSONValue { return v }
        if let optional = value as? any OptionalProtocol, optional.isNone { return void }
        return try JSONValueCoding.encode(value)
    }
}

/// Lets generic code ask whether a value is an empty `Optional`.
protocol OptionalProtocol {
    var isNone: Bool { get }
}

extension Optional: OptionalProtocol {
    var isNone: Bool { self == nil }
}

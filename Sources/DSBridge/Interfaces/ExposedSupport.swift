// SPDX-License-Identifier: MIT

/// Decodes call arguments for code the `@Exposed` macro generates.
public enum ExposedArgument {
    /// Decodes the call's `data` as the parameter type of `method`.
    /// - Throws: ``ExposedCallError`` of kind `badArgument`, saying what was expected.
    ///
    /// Inlinable, so that the code the macro generates in the interface's module is
    /// specialised for `T`: a ``JSONValue`` or `String` parameter then costs next to
    /// nothing (unspecialised, even that needs a type-metadata look-up and a dynamic cast
    /// at run time).
    @inlinable
    public static func decode<T: Decodable>(_ type: T.Type, from argument: JSONValue, method: String) throws(ExposedCallError) -> T {
        if T.self == JSONValue.self, let value = argument as? T { return value }
        if T.self == String.self, case .string(let text) = argument, let value = text as? T { return value }
        return try decodeConverting(T.self, from: argument, method: method)
    }

    /// ``decode(_:from:method:)`` for the other types (and a mismatch).
    @usableFromInline
    static func decodeConverting<T: Decodable>(_ type: T.Type, from argument: JSONValue, method: String) throws(ExposedCallError) -> T {
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
    /// a ``JSONValue`` is answered as is, `.null` included. Inlinable for the same reason as
    /// ``ExposedArgument/decode(_:from:method:)``.
    @inlinable
    public static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        // A JSONValue is never an Optional: skip the (costlier) Optional check for it.
        if T.self == JSONValue.self, let v = value as? JSONValue { return v }
        if T.self == String.self, let text = value as? String { return .string(text) }
        return try encodeConverting(value)
    }

    /// ``encode(_:)`` for the other types.
    @usableFromInline
    static func encodeConverting<T: Encodable>(_ value: T) throws -> JSONValue {
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

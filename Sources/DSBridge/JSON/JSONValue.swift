// SPDX-License-Identifier: MIT
import OrderedCollections

/// A JSON value as it travels on the wire, with integers kept apart from other numbers
/// and object members kept in the order they were read or written.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    /// Any other number.
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// A JSON object: members in order, unique keys (a repeated key keeps the last value).
public typealias JSONObject = OrderedDictionary<String, JSONValue>

extension JSONValue {
    /// The member `key` of an object, or `nil` for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// True for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The boolean, when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The value as an integer when it is an integral number (`3` or `3.0`), else `nil`.
    public var integerValue: Int64? {
        switch self {
        case .integer(let i): return i
        case .number(let d):
            guard d.isFinite, d.rounded(.towardZero) == d, d >= -9.223372036854775808e18, d < 9.223372036854775808e18
            else { return nil }
            return Int64(d)
        default: return nil
        }
    }

    /// The value as a Double when it is any number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .number(let d): return d
        default: return nil
        }
    }

    /// The members, when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var members = JSONObject(minimumCapacity: elements.count)
        for (k, v) in elements { members[k] = v }
        self = .object(members)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of this value.
    public var description: String { JSONWriter.string(self) }
}

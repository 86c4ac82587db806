// SPDX-License-Identifier: MIT
import Foundation

/// Converts between ``JSONValue`` and Swift `Codable` types without coercion: a `String`
/// accepts only a JSON string, an `Int` only an integral number, `nil` only an `Optional`.
///
/// The results are those of Foundation's `JSONDecoder` and `JSONEncoder` (sorted keys,
/// slashes unescaped) on the value's JSON text, reached without writing and re-reading that
/// text (see `JSONValueDecoder` and `JSONValueEncoder`).
public enum JSONValueCoding {
    /// Decodes `T` from `value`.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        // The commonest parameter types first, by identity: cheaper than the protocol cast below.
        if T.self == JSONValue.self, let v = value as? T { return v }
        if T.self == String.self {
            guard case .string(let s) = value, let v = s as? T else { throw mismatch(T.self, value) }
            return v
        }
        if let fast = T.self as? any JSONDirectlyConvertible.Type {
            guard let v = fast.init(json: value) as? T else { throw mismatch(T.self, value) }
            return v
        }
        return try JSONValueDecoder.decode(T.self, from: value, at: [])
    }

    /// Encodes `value` as a ``JSONValue``.
    public static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        if T.self == JSONValue.self, let v = value as? JSONValue { return v }
        if T.self == String.self, let s = value as? String { return .string(s) }
        if let fast = value as? any JSONDirectlyConvertible { return fast.json }
        return try JSONValueEncoder.encode(value)
    }

    private static func mismatch(_ type: Any.Type, _ value: JSONValue) -> DecodingError {
        .typeMismatch(type, .init(codingPath: [], debugDescription: "got \(value.kindName)"))
    }
}

/// Types converted to and from JSON without going through Foundation's coders.
protocol JSONDirectlyConvertible {
    init?(json: JSONValue)
    var json: JSONValue { get }
}

extension JSONValue: JSONDirectlyConvertible {
    init?(json: JSONValue) { self = json }
    var json: JSONValue { self }
}

extension String: JSONDirectlyConvertible {
    init?(json: JSONValue) {
        guard case .string(let s) = json else { return nil }
        self = s
    }
    var json: JSONValue { .string(self) }
}

extension Bool: JSONDirectlyConvertible {
    init?(json: JSONValue) {
        guard case .bool(let b) = json else { return nil }
        self = b
    }
    var json: JSONValue { .bool(self) }
}

extension Int: JSONDirectlyConvertible {
    init?(json: JSONValue) {
        guard let i = json.integerValue, let v = Int(exactly: i) else { return nil }
        self = v
    }
    var json: JSONValue { .integer(Int64(self)) }
}

extension Int64: JSONDirectlyConvertible {
    init?(json: JSONValue) {
        guard let i = json.integerValue else { return nil }
        self = i
    }
    var json: JSONValue { .integer(self) }
}

extension Int32: JSONDirectlyConvertible {
    init?(json: JSONValue) {
        guard let i = json.integerValue, let v = Int32(exactly: i) else { return nil }
        self = v
    }
    var json: JSONValue { .integer(Int64(self)) }
}

extension Double: JSONDirectlyConvertible {
    init?(json: JSONValue) {
        guard let d = json.doubleValue else { return nil }
        self = d
    }
    var json: JSONValue { .number(self) }
}

extension Optional: JSONDirectlyConvertible where Wrapped: JSONDirectlyConvertible {
    init?(json: JSONValue) {
        if case .null = json {
            self = .none
            return
        }
        guard let w = Wrapped(json: json) else { return nil }
        self = .some(w)
    }
    var json: JSONValue { self.map(\.json) ?? .null }
}

extension Array: JSONDirectlyConvertible where Element: JSONDirectlyConvertible {
    init?(json: JSONValue) {
        guard case .array(let elements) = json else { return nil }
        var out: [Element] = []
        out.reserveCapacity(elements.count)
        for e in elements {
            guard let v = Element(json: e) else { return nil }
            out.append(v)
        }
        self = out
    }
    var json: JSONValue { .array(self.map(\.json)) }
}

extension JSONValue {
    /// A word for the value's JSON type, for error messages.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer: return "an integer"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .integer(i)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            let o = try c.decode([String: JSONValue].self)
            var members = JSONObject()
            for k in o.keys.sorted() { members[k] = o[k] }
            self = .object(members)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .integer(let i):
            var c = encoder.singleValueContainer()
            try c.encode(i)
        case .number(let d):
            var c = encoder.singleValueContainer()
            try c.encode(d)
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let a):
            var c = encoder.unkeyedContainer()
            for e in a { try c.encode(e) }
        case .object(let o):
            var c = encoder.container(keyedBy: AnyKey.self)
            for (k, v) in o { try c.encode(v, forKey: AnyKey(k)) }
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

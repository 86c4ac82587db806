// SPDX-License-Identifier: MIT
import Foundation

/// Decodes `Decodable` values straight from a ``JSONValue``, with the results Foundation's
/// `JSONDecoder` (default strategies) gives for the JSON text of that value, without writing
/// and re-reading the text. Objects, arrays, `null`, booleans, strings, `Double` and
/// integers that fit take the direct path; every other scalar (integers from non-integral
/// text, `Float`, `Decimal`, `Data`, `URL`, 128-bit integers) is handed to `JSONDecoder`
/// on its own JSON text, so those keep Foundation's exact rules.
struct JSONValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: JSONValue, codingPath: [any CodingKey] = []) {
        self.value = value
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw Self.mismatch([String: Any].self, value, codingPath)
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw Self.mismatch([Any].self, value, codingPath) }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(value: value, codingPath: codingPath)
    }

    // MARK: values

    /// Decodes `T` from `value` at `path`.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> T {
        // Elements of arrays and dictionaries are often plain strings and numbers: decode
        // them here rather than through a nested decoder (and without building their path).
        if T.self == String.self, let v = try string(value, at: path()) as? T { return v }
        if T.self == Int.self, let v = try integer(Int.self, value, at: path()) as? T { return v }
        if T.self == Double.self, let v = try double(value, at: path()) as? T { return v }
        if T.self == Bool.self, let v = try bool(value, at: path()) as? T { return v }
        if T.self == Data.self || T.self == URL.self || T.self == Decimal.self || T.self == Int128.self
            || T.self == UInt128.self
        {
            return try foundation(T.self, from: value, at: path())
        }
        return try T(from: JSONValueDecoder(value, codingPath: path()))
    }

    /// A `Bool`; Foundation calls `null` here a type mismatch, not a missing value.
    static func bool(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let b) = value else {
            throw DecodingError.typeMismatch(
                Bool.self, .init(codingPath: path(), debugDescription: "Expected to decode Bool but found \(value.kindName) instead."))
        }
        return b
    }

    static func string(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .string(let s) = value else { throw mismatch(String.self, value, path()) }
        return s
    }

    /// A `Double`: the text our writer makes for a number reads back as the same value,
    /// except `-0.0`, which it writes as `0`.
    static func double(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Double {
        switch value {
        case .integer(let i): return Double(i)
        case .number(let d): return d == 0 ? 0 : d
        default: throw mismatch(Double.self, value, path())
        }
    }

    /// An integer of type `T`: directly from an integer that fits, through Foundation for
    /// anything else (a number such as `1e+15` may still be integral; overflow is its error).
    static func integer<T: FixedWidthInteger & Decodable>(_ type: T.Type, _ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> T {
        if case .integer(let i) = value, let v = T(exactly: i) { return v }
        return try foundation(T.self, from: value, at: path())
    }

    /// `JSONDecoder` on the JSON text of `value` (a null is refused first, as it refuses it).
    static func foundation<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: [any CodingKey]) throws -> T {
        if case .null = value { throw missing(T.self, path) }
        do {
            return try JSONDecoder().decode(T.self, from: Data(JSONWriter.bytes(value)))
        } catch let error as DecodingError {
            throw relocated(error, to: path)
        }
    }

    // MARK: errors

    static func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
        if case .null = value { return missing(type, path) }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(value.kindName) instead."))
    }

    static func missing(_ type: Any.Type, _ path: [any CodingKey]) -> DecodingError {
        .valueNotFound(type, .init(codingPath: path, debugDescription: "Expected \(type) value but found null instead."))
    }

    /// `error`, from a decoder that saw only one value, with the path of that value in front.
    static func relocated(_ error: DecodingError, to path: [any CodingKey]) -> DecodingError {
        guard !path.isEmpty else { return error }
        switch error {
        case .typeMismatch(let t, let c):
            return .typeMismatch(t, .init(codingPath: path + c.codingPath, debugDescription: c.debugDescription, underlyingError: c.underlyingError))
        case .valueNotFound(let t, let c):
            return .valueNotFound(t, .init(codingPath: path + c.codingPath, debugDescription: c.debugDescription, underlyingError: c.underlyingError))
        case .keyNotFound(let k, let c):
            return .keyNotFound(k, .init(codingPath: path + c.codingPath, debugDescription: c.debugDescription, underlyingError: c.underlyingError))
        case .dataCorrupted(let c):
            return .dataCorrupted(.init(codingPath: path + c.codingPath, debugDescription: c.debugDescription, underlyingError: c.underlyingError))
        @unknown default: return error
        }
    }
}

/// A coding key for an array position, as Foundation names it.
struct JSONIndexKey: CodingKey {
    let index: Int
    var intValue: Int? { index }
    var stringValue: String { "Index \(index)" }

    init(_ index: Int) {
        self.index = index
    }

    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.init(intValue) }
}

/// The key Foundation uses for `superDecoder()` / `superEncoder()`.
struct JSONSuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}

extension JSONValueDecoder {
    struct SingleValueContainer: SingleValueDecodingContainer {
        let value: JSONValue
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { value.isNull }
        func decode(_ type: Bool.Type) throws -> Bool { try JSONValueDecoder.bool(value, at: codingPath) }
        func decode(_ type: String.Type) throws -> String { try JSONValueDecoder.string(value, at: codingPath) }
        func decode(_ type: Double.Type) throws -> Double { try JSONValueDecoder.double(value, at: codingPath) }
        func decode(_ type: Float.Type) throws -> Float { try JSONValueDecoder.foundation(type, from: value, at: codingPath) }
        func decode(_ type: Int.Type) throws -> Int { try JSONValueDecoder.integer(type, value, at: codingPath) }
        func decode(_ type: Int8.Type) throws -> Int8 { try JSONValueDecoder.integer(type, value, at: codingPath) }
        func decode(_ type: Int16.Type) throws -> Int16 { try JSONValueDecoder.integer(type, value, at: codingPath) }
        func decode(_ type: Int32.Type) throws -> Int32 { try JSONValueDecoder.integer(type, value, at: codingPath) }
        func decode(_ type: Int64.Type) throws -> Int64 { try JSONValueDecoder.integer(type, value, at: codingPath) }
        func decode(_ type: UInt.Type) throws -> UInt { try JSONValueDecoder.integer(type, value, at: codingPath) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try JSONValueDecoder.integer(type, value, at: codingPath) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try JSONValueDecoder.integer(type, value, at: codingPath) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try JSONValueDecoder.integer(type, value, at: codingPath) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try JSONValueDecoder.integer(type, value, at: codingPath) }
        func decode(_ type: Int128.Type) throws -> Int128 { try JSONValueDecoder.foundation(type, from: value, at: codingPath) }
        func decode(_ type: UInt128.Type) throws -> UInt128 { try JSONValueDecoder.foundation(type, from: value, at: codingPath) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONValueDecoder.decode(type, from: value, at: codingPath) }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: JSONObject
        let codingPath: [any CodingKey]

        var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }
        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

        private func member(_ key: Key) throws -> JSONValue {
            guard let value = members[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
            }
            return value
        }

        private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

        func decodeNil(forKey key: Key) throws -> Bool { try member(key).isNull }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try JSONValueDecoder.bool(member(key), at: path(key)) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try JSONValueDecoder.string(member(key), at: path(key)) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try JSONValueDecoder.double(member(key), at: path(key)) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try JSONValueDecoder.foundation(type, from: member(key), at: path(key)) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try JSONValueDecoder.integer(type, member(key), at: path(key)) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try JSONValueDecoder.integer(type, member(key), at: path(key)) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try JSONValueDecoder.integer(type, member(key), at: path(key)) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try JSONValueDecoder.integer(type, member(key), at: path(key)) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try JSONValueDecoder.integer(type, member(key), at: path(key)) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try JSONValueDecoder.integer(type, member(key), at: path(key)) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try JSONValueDecoder.integer(type, member(key), at: path(key)) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try JSONValueDecoder.integer(type, member(key), at: path(key)) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try JSONValueDecoder.integer(type, member(key), at: path(key)) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try JSONValueDecoder.integer(type, member(key), at: path(key)) }
        func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try JSONValueDecoder.foundation(type, from: member(key), at: path(key)) }
        func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try JSONValueDecoder.foundation(type, from: member(key), at: path(key)) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try JSONValueDecoder.decode(type, from: member(key), at: path(key))
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try JSONValueDecoder(member(key), codingPath: path(key)).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try JSONValueDecoder(member(key), codingPath: path(key)).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            JSONValueDecoder(members["super"] ?? .null, codingPath: codingPath + [JSONSuperKey()])
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            JSONValueDecoder(members[key.stringValue] ?? .null, codingPath: path(key))
        }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let elements: [JSONValue]
        let codingPath: [any CodingKey]
        private(set) var currentIndex = 0

        init(elements: [JSONValue], codingPath: [any CodingKey]) {
            self.elements = elements
            self.codingPath = codingPath
        }

        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        /// The next element and its path; the index moves on only when `body` succeeds.
        /// (`path` builds the element's coding path, only for errors and nested values.)
        private mutating func next<T>(_ type: Any.Type, _ body: (JSONValue, () -> [any CodingKey]) throws -> T) throws -> T {
            let index = currentIndex
            let path = { [codingPath] in codingPath + [JSONIndexKey(index)] }
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(type, .init(codingPath: path(), debugDescription: "Unkeyed container is at end."))
            }
            let result = try body(elements[currentIndex], path)
            currentIndex += 1
            return result
        }

        /// True (and moves on) when the next element is `null`.
        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    Any?.self, .init(codingPath: codingPath + [JSONIndexKey(currentIndex)], debugDescription: "Unkeyed container is at end."))
            }
            guard elements[currentIndex].isNull else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try JSONValueDecoder.bool($0, at: $1()) } }
        mutating func decode(_ type: String.Type) throws -> String { try next(type) { try JSONValueDecoder.string($0, at: $1()) } }
        mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try JSONValueDecoder.double($0, at: $1()) } }
        mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try JSONValueDecoder.foundation(type, from: $0, at: $1()) } }
        mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try JSONValueDecoder.integer(type, $0, at: $1()) } }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try JSONValueDecoder.integer(type, $0, at: $1()) } }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try JSONValueDecoder.integer(type, $0, at: $1()) } }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try JSONValueDecoder.integer(type, $0, at: $1()) } }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try JSONValueDecoder.integer(type, $0, at: $1()) } }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try JSONValueDecoder.integer(type, $0, at: $1()) } }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { try JSONValueDecoder.integer(type, $0, at: $1()) } }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { try JSONValueDecoder.integer(type, $0, at: $1()) } }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { try JSONValueDecoder.integer(type, $0, at: $1()) } }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { try JSONValueDecoder.integer(type, $0, at: $1()) } }
        mutating func decode(_ type: Int128.Type) throws -> Int128 { try next(type) { try JSONValueDecoder.foundation(type, from: $0, at: $1()) } }
        mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try next(type) { try JSONValueDecoder.foundation(type, from: $0, at: $1()) } }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try next(type) { try JSONValueDecoder.decode(type, from: $0, at: $1()) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next(KeyedDecodingContainer<NestedKey>.self) { try JSONValueDecoder($0, codingPath: $1()).container(keyedBy: type) }
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try next((any UnkeyedDecodingContainer).self) { try JSONValueDecoder($0, codingPath: $1()).unkeyedContainer() }
        }

        mutating func superDecoder() throws -> any Decoder {
            try next((any Decoder).self) { JSONValueDecoder($0, codingPath: $1()) }
        }
    }
}

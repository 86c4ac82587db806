// SPDX-License-Identifier: MIT
import Foundation

/// Encodes `Encodable` values straight into a ``JSONValue``: the value that Foundation's
/// `JSONEncoder` (`.sortedKeys`, `.withoutEscapingSlashes`, default strategies) writes,
/// read back by ``JSONParser``, without writing and re-reading the text. Object members
/// come out sorted by the UTF-8 bytes of their keys, as that encoder sorts them; numbers
/// become what the parser makes of the encoder's text (`3.0` → `.integer(3)`); non-finite
/// numbers are refused. `Data`, `URL`, `Decimal` and 128-bit integers, which `JSONEncoder`
/// treats specially, are handed to it.
enum JSONValueEncoder {
    static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = EncodingNode()
        try root.encode(value, at: [])
        guard let result = root.finish(topLevel: true) else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return result
    }

    /// The value the parser makes of the text `JSONEncoder` writes for `d`: its shortest
    /// form, without a trailing `.0`.
    static func double(_ d: Double, at path: @autoclosure () -> [any CodingKey]) throws -> JSONValue {
        guard d.isFinite else { throw nonFinite(d, path()) }
        // Integral values up to 2^53 print in full ("12.0" → "12"; "-0.0" → "-0" → 0);
        // others print in shortest round-trip form, which reads back as `d` itself.
        if d.rounded(.towardZero) == d, d.magnitude <= 9_007_199_254_740_992 { return .integer(Int64(d)) }
        return .number(d)
    }

    /// `Float` prints its own shortest form, which the parser reads as a Double.
    static func float(_ f: Float, at path: @autoclosure () -> [any CodingKey]) throws -> JSONValue {
        guard f.isFinite else { throw nonFinite(f, path()) }
        var text = f.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return try JSONParser.parse(text)
    }

    static func integer<T: FixedWidthInteger>(_ i: T) -> JSONValue {
        if let exact = Int64(exactly: i) { return .integer(exact) }
        return .number(Double(i))
    }

    /// `JSONEncoder` itself, for the types it treats specially.
    static func foundation<T: Encodable>(_ value: T, at path: [any CodingKey]) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch let EncodingError.invalidValue(v, context) where !path.isEmpty {
            throw EncodingError.invalidValue(
                v, .init(codingPath: path + context.codingPath, debugDescription: context.debugDescription, underlyingError: context.underlyingError))
        }
        return try JSONParser.parse(Array(data), maxDepth: .max)
    }

    static func isSpecial<T>(_ type: T.Type) -> Bool {
        T.self == Data.self || T.self == URL.self || T.self == Decimal.self || T.self == Int128.self || T.self == UInt128.self
    }

    static func nonFinite<F: BinaryFloatingPoint>(_ value: F, _ path: [any CodingKey]) -> EncodingError {
        .invalidValue(value, .init(codingPath: path, debugDescription: "Unable to encode \(F.self).\(value) directly in JSON."))
    }
}

/// What one encoder (or nested container) has encoded so far. A reference, because
/// containers handed out earlier keep adding to it.
final class EncodingNode {
    /// A member or element: a finished value, or a node still being filled.
    enum Slot {
        case value(JSONValue)
        case node(EncodingNode)
    }

    enum Kind {
        case empty
        case single(JSONValue)
        case object
        case array
    }

    private(set) var kind = Kind.empty
    /// Members in the order encoded; a key encoded again replaces the earlier value when
    /// the node is finished (a list, because hashing every key costs more than sorting).
    var members: [(key: String, slot: Slot)] = []
    var elements: [Slot] = []

    func becomeObject() {
        if case .object = kind { return }
        kind = .object
        elements = []
    }

    func becomeArray() {
        if case .array = kind { return }
        kind = .array
        members = []
    }

    func set(_ value: JSONValue) { kind = .single(value) }

    var isObject: Bool {
        if case .object = kind { return true }
        return false
    }

    var isArray: Bool {
        if case .array = kind { return true }
        return false
    }

    /// Encodes `value` into this node.
    func encode<T: Encodable>(_ value: T, at path: [any CodingKey]) throws {
        if JSONValueEncoder.isSpecial(T.self) {
            set(try JSONValueEncoder.foundation(value, at: path))
        } else {
            try value.encode(to: JSONValueEncoderContext(node: self, codingPath: path))
        }
    }

    /// `value` as a slot: a plain value when it encoded a single value, else its node.
    /// Strings, `Int`, `Bool` and `Double` are converted here, without a node or a path.
    static func slot<T: Encodable>(for value: T, at path: @autoclosure () -> [any CodingKey]) throws -> Slot {
        if T.self == String.self, let s = value as? String { return .value(.string(s)) }
        if T.self == Int.self, let i = value as? Int { return .value(JSONValueEncoder.integer(i)) }
        if T.self == Bool.self, let b = value as? Bool { return .value(.bool(b)) }
        if T.self == Double.self, let d = value as? Double { return .value(try JSONValueEncoder.double(d, at: path())) }
        let child = EncodingNode()
        try child.encode(value, at: path())
        if case .single(let v) = child.kind { return .value(v) }
        return .node(child)
    }

    /// The finished value; a node that encoded nothing is `{}`, or `nil` at the top level.
    func finish(topLevel: Bool = false) -> JSONValue? {
        switch kind {
        case .empty:
            return topLevel ? nil : .object(JSONObject())
        case .single(let v):
            return v
        case .array:
            return .array(elements.map(Self.finished))
        case .object:
            // Sorted by the keys' UTF-8 bytes; the same key in encoding order, so the value
            // encoded last is the one kept.
            let order = members.indices.sorted { a, b in
                let (ka, kb) = (members[a].key, members[b].key)
                return ka == kb ? a < b : ka.utf8.lexicographicallyPrecedes(kb.utf8)
            }
            var object = JSONObject(minimumCapacity: order.count)
            for i in order { object[members[i].key] = Self.finished(members[i].slot) }
            return .object(object)
        }
    }

    private static func finished(_ slot: Slot) -> JSONValue {
        switch slot {
        case .value(let v): return v
        case .node(let n): return n.finish() ?? .object(JSONObject())
        }
    }
}

/// The `Encoder` handed to `encode(to:)`.
struct JSONValueEncoderContext: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: node, codingPath: codingPath)
    }
}

extension JSONValueEncoderContext {
    struct SingleValueContainer: SingleValueEncodingContainer {
        let node: EncodingNode
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.set(.null) }
        mutating func encode(_ value: Bool) throws { node.set(.bool(value)) }
        mutating func encode(_ value: String) throws { node.set(.string(value)) }
        mutating func encode(_ value: Double) throws { node.set(try JSONValueEncoder.double(value, at: codingPath)) }
        mutating func encode(_ value: Float) throws { node.set(try JSONValueEncoder.float(value, at: codingPath)) }
        mutating func encode(_ value: Int) throws { node.set(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: Int8) throws { node.set(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: Int16) throws { node.set(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: Int32) throws { node.set(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: Int64) throws { node.set(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt) throws { node.set(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt8) throws { node.set(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt16) throws { node.set(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt32) throws { node.set(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt64) throws { node.set(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: Int128) throws { node.set(try JSONValueEncoder.foundation(value, at: codingPath)) }
        mutating func encode(_ value: UInt128) throws { node.set(try JSONValueEncoder.foundation(value, at: codingPath)) }
        mutating func encode<T: Encodable>(_ value: T) throws { try node.encode(value, at: codingPath) }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: EncodingNode
        let codingPath: [any CodingKey]

        private func put(_ value: JSONValue, _ key: Key) { node.members.append((key.stringValue, .value(value))) }
        private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

        mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
        mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { put(try JSONValueEncoder.double(value, at: path(key)), key) }
        mutating func encode(_ value: Float, forKey key: Key) throws { put(try JSONValueEncoder.float(value, at: path(key)), key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { put(JSONValueEncoder.integer(value), key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { put(JSONValueEncoder.integer(value), key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { put(JSONValueEncoder.integer(value), key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { put(JSONValueEncoder.integer(value), key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { put(JSONValueEncoder.integer(value), key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { put(JSONValueEncoder.integer(value), key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { put(JSONValueEncoder.integer(value), key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { put(JSONValueEncoder.integer(value), key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { put(JSONValueEncoder.integer(value), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { put(JSONValueEncoder.integer(value), key) }
        mutating func encode(_ value: Int128, forKey key: Key) throws { put(try JSONValueEncoder.foundation(value, at: path(key)), key) }
        mutating func encode(_ value: UInt128, forKey key: Key) throws { put(try JSONValueEncoder.foundation(value, at: path(key)), key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            node.members.append((key.stringValue, try EncodingNode.slot(for: value, at: path(key))))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let node = existing(key.stringValue, where: \.isObject) ?? child(key.stringValue)
            return JSONValueEncoderContext(node: node, codingPath: path(key)).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let node = existing(key.stringValue, where: \.isArray) ?? child(key.stringValue)
            return JSONValueEncoderContext(node: node, codingPath: path(key)).unkeyedContainer()
        }

        /// The node last encoded under `key`, when it is of the wanted kind: Foundation goes on
        /// filling an object or array already encoded there.
        private func existing(_ key: String, where kind: (EncodingNode) -> Bool) -> EncodingNode? {
            guard let last = node.members.last(where: { $0.key == key }), case .node(let n) = last.slot, kind(n) else { return nil }
            return n
        }

        mutating func superEncoder() -> any Encoder {
            JSONValueEncoderContext(node: child("super"), codingPath: codingPath + [JSONSuperKey()])
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            JSONValueEncoderContext(node: child(key.stringValue), codingPath: path(key))
        }

        private func child(_ key: String) -> EncodingNode {
            let child = EncodingNode()
            node.members.append((key, .node(child)))
            return child
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: EncodingNode
        let codingPath: [any CodingKey]

        var count: Int { node.elements.count }
        private var nextPath: [any CodingKey] { codingPath + [JSONIndexKey(count)] }
        private func put(_ value: JSONValue) { node.elements.append(.value(value)) }

        mutating func encodeNil() throws { put(.null) }
        mutating func encode(_ value: Bool) throws { put(.bool(value)) }
        mutating func encode(_ value: String) throws { put(.string(value)) }
        mutating func encode(_ value: Double) throws { put(try JSONValueEncoder.double(value, at: nextPath)) }
        mutating func encode(_ value: Float) throws { put(try JSONValueEncoder.float(value, at: nextPath)) }
        mutating func encode(_ value: Int) throws { put(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: Int8) throws { put(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: Int16) throws { put(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: Int32) throws { put(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: Int64) throws { put(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt) throws { put(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt8) throws { put(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt16) throws { put(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt32) throws { put(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt64) throws { put(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: Int128) throws { put(try JSONValueEncoder.foundation(value, at: nextPath)) }
        mutating func encode(_ value: UInt128) throws { put(try JSONValueEncoder.foundation(value, at: nextPath)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            node.elements.append(try EncodingNode.slot(for: value, at: nextPath))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let path = nextPath
            return JSONValueEncoderContext(node: child(), codingPath: path).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let path = nextPath
            return JSONValueEncoderContext(node: child(), codingPath: path).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let path = nextPath
            return JSONValueEncoderContext(node: child(), codingPath: path)
        }

        private func child() -> EncodingNode {
            let child = EncodingNode()
            node.elements.append(.node(child))
            return child
        }
    }
}

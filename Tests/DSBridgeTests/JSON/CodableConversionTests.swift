// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Testing

/// What `JSONValueCoding` gave before it converted directly: Foundation's coders on the
/// JSON text. Every test here checks the direct conversion against it.
private enum ThroughText {
    static func decode<T: Decodable>(_ type: T.Type, _ value: JSONValue) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(JSONWriter.bytes(value)))
    }

    static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return try JSONParser.parse(Array(try encoder.encode(value)), maxDepth: .max)
    }
}

/// The case name of a decoding error (`typeMismatch`, ...), or `ok`.
private func outcome<T>(_ body: () throws -> T) -> String {
    do {
        _ = try body()
        return "ok"
    } catch let DecodingError.typeMismatch(_, c) {
        return "typeMismatch \(c.codingPath.map(\.stringValue))"
    } catch let DecodingError.valueNotFound(_, c) {
        return "valueNotFound \(c.codingPath.map(\.stringValue))"
    } catch let DecodingError.keyNotFound(k, c) {
        return "keyNotFound \(k.stringValue) \(c.codingPath.map(\.stringValue))"
    } catch DecodingError.dataCorrupted {
        return "dataCorrupted"
    } catch is EncodingError {
        return "encodingError"
    } catch {
        return "other \(error)"
    }
}

private struct Profile: Codable, Equatable {
    var id: Int
    var name: String
    var nickname: String?
    var score: Double
    var ratio: Float
    var small: Int8
    var big: UInt64
    var tags: [String]
    var flags: [String: Bool]
    var byNumber: [Int: String]
    var address: Address?
    var kind: Kind
    var joined: Date
    var avatar: Data
    var homepage: URL
    var balance: Decimal

    struct Address: Codable, Equatable {
        var street: String
        var lines: [[Int?]]
    }

    enum Kind: Codable, Equatable {
        case person(age: Int)
        case robot(model: String, serial: Int64)
        case unknown
    }

    static let sample = Profile(
        id: 42, name: "Ada /\"é\" 😀", nickname: nil, score: 97.25, ratio: 0.1, small: -8, big: 9_000_000_000_000_000_000, tags: ["a", "b"],
        flags: ["b": true, "a": false, "B": true, "a10": true, "a9": false, "é": true, "e\u{301}x": false],
        byNumber: [2: "two", 10: "ten"], address: Address(street: "1 Road", lines: [[1, nil], []]),
        kind: .robot(model: "R2", serial: -7), joined: Date(timeIntervalSinceReferenceDate: 12.5),
        avatar: Data([0, 1, 2, 250]), homepage: URL(string: "https://example.org/a/b?c=d")!, balance: Decimal(string: "12.50")!)
}

private class Animal: Codable, Equatable {
    var legs: Int
    init(legs: Int) { self.legs = legs }
    static func == (a: Animal, b: Animal) -> Bool { a.legs == b.legs && type(of: a) == type(of: b) }
}

private final class Dog: Animal {
    var name: String
    init(name: String) {
        self.name = name
        super.init(legs: 4)
    }
    enum Keys: CodingKey { case name }
    required init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        name = try c.decode(String.self, forKey: .name)
        try super.init(from: c.superDecoder())
    }
    override func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(name, forKey: .name)
        try super.encode(to: c.superEncoder())
    }
}

/// Writes `c`, `a`, `b`, then `a` and `b` again.
private struct Twice: Encodable {
    enum Keys: String, CodingKey { case a, b, c }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(true, forKey: .c)
        try c.encode(1, forKey: .a)
        try c.encode([1], forKey: .b)
        try c.encode("x", forKey: .a)
        var nested = c.nestedUnkeyedContainer(forKey: .b)
        try nested.encode(2)
    }
}

/// Encodes nothing: Foundation refuses it at the top level and writes `{}` inside.
private struct Silent: Codable, Equatable {
    init() {}
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
}

@Suite("Codable ↔ JSONValue: the same results as Foundation's coders on the JSON text")
struct CodableConversionTests {
    @Test("a structured value encodes to the same JSON, keys sorted by their UTF-8 bytes")
    func encodeProfile() throws {
        let direct = try JSONValueCoding.encode(Profile.sample)
        #expect(direct == (try ThroughText.encode(Profile.sample)))
        #expect(JSONWriter.string(direct["flags"] ?? nil) == #"{"B":true,"a":false,"a10":true,"a9":false,"b":true,"e\#u{301}x":false,"é":true}"#)
    }

    @Test("a structured value decodes to the same value")
    func decodeProfile() throws {
        let value = try ThroughText.encode(Profile.sample)
        #expect(try JSONValueCoding.decode(Profile.self, from: value) == Profile.sample)
        #expect(try JSONValueCoding.decode(Profile.self, from: value) == (try ThroughText.decode(Profile.self, value)))
    }

    @Test("class hierarchies use the super key; nested empty values are {}")
    func superAndEmpty() throws {
        let dog = Dog(name: "Rex")
        #expect(try JSONValueCoding.encode(dog) == (try ThroughText.encode(dog)))
        #expect(JSONWriter.string(try JSONValueCoding.encode(dog)) == #"{"name":"Rex","super":{"legs":4}}"#)
        #expect(try JSONValueCoding.decode(Dog.self, from: ["name": "Rex", "super": ["legs": 4]]) == dog)
        #expect(try JSONValueCoding.encode([Silent()]) == [[:]])
        #expect(outcome { try JSONValueCoding.encode(Silent()) } == "encodingError")
        #expect(outcome { try ThroughText.encode(Silent()) } == "encodingError")
    }

    @Test("a key encoded twice keeps the value encoded last; a nested array there is added to")
    func repeatedKey() throws {
        let twice = Twice()
        #expect(try JSONValueCoding.encode(twice) == (try ThroughText.encode(twice)))
        #expect(JSONWriter.string(try JSONValueCoding.encode(twice)) == #"{"a":"x","b":[1,2],"c":true}"#)
    }

    @Test(
        "doubles encode as the parser reads the encoder's text",
        arguments: [
            0.0, -0.0, 1, -1, 3, 0.1, 0.5, -0.25, 1e15, 1e16, 123456.789, 9_007_199_254_740_992, -9_007_199_254_740_992,
            9_007_199_254_740_994, 9_007_199_254_740_991, 4_503_599_627_370_497, 1e300, -1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
            1e-7, 0.0001, 2.5e17, 12_345_678_901_234.5, Double(Int64.max), -Double(Int64.max),
        ])
    func doubles(d: Double) throws {
        #expect(try JSONValueCoding.encode(Holder(v: d)) == (try ThroughText.encode(Holder(v: d))))
        #expect(try JSONValueCoding.encode(["k": d]) == (try ThroughText.encode(["k": d])))
        // A top-level Double (or array of them) keeps its shortcut: `.number`, as before.
        #expect(try JSONValueCoding.encode(d) == .number(d))
    }

    @Test("every integral double up to 2^53 and around powers of ten encodes the same")
    func integralDoubles() throws {
        var samples: [Double] = []
        var p = 1.0
        for _ in 0..<20 {
            samples += [p - 1, p, p + 1, -p, p * 1.5, p / 3]
            p *= 10
        }
        for shift in 40...60 { samples += [Double(1 << shift) - 1, Double(1 << shift), Double(1 << shift) + 2] }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 { samples.append(Double(bitPattern: generator.next())) }
        let finite = samples.filter(\.isFinite)
        #expect(try JSONValueEncoderProbe.encode(finite) == (try ThroughText.encode(Holder(v: finite))))
    }

    @Test("floats and special numbers encode the same", arguments: [Float(0.1), 1e10, 16_777_216, -0.0, 3.4e38, .leastNonzeroMagnitude])
    func floats(f: Float) throws {
        #expect(try JSONValueCoding.encode(["f": f]) == (try ThroughText.encode(["f": f])))
    }

    @Test("non-finite numbers are refused", arguments: [Double.nan, .infinity, -.infinity])
    func nonFinite(d: Double) {
        #expect(outcome { try JSONValueCoding.encode(["k": d]) } == "encodingError")
        #expect(outcome { try JSONValueCoding.encode(["k": Float(d)]) } == "encodingError")
    }

    @Test(
        "scalars decode to the same value or the same kind of error",
        arguments: [
            JSONValue.integer(3), .number(3.0), .number(-0.0), .number(1e15), .number(1.2e18), .number(1.5), .number(1e20),
            .integer(300), .integer(-1), .integer(.max), .integer(.min), .number(9.223372036854776e18), .number(0.1),
            .number(1e39), .string("3"), .string("aGVsbG8="), .string("https://x.org/a b"), .string("not base64!"), .null,
            .bool(true), .array([1]), .object(["a": 1]),
        ])
    func scalars(value: JSONValue) {
        func same<T: Codable & Equatable>(_ type: T.Type) {
            let direct = outcome { try JSONValueCoding.decode(Holder<T>.self, from: ["v": value]) }
            let text = outcome { try ThroughText.decode(Holder<T>.self, ["v": value]) }
            #expect(direct == text, "\(T.self) from \(value)")
            if let a = try? JSONValueCoding.decode(Holder<T>.self, from: ["v": value]), let b = try? ThroughText.decode(Holder<T>.self, ["v": value]) {
                #expect(a == b, "\(T.self) from \(value)")
            }
        }
        same(Int.self); same(Int8.self); same(Int16.self); same(Int32.self); same(Int64.self)
        same(UInt.self); same(UInt8.self); same(UInt16.self); same(UInt32.self); same(UInt64.self)
        same(Double.self); same(Float.self); same(Bool.self); same(String.self); same(Decimal.self)
        same(Data.self); same(URL.self); same(Date.self); same(Int?.self); same([Int].self); same([String: Int].self)
        if case .number(let d) = value, let decoded = try? JSONValueCoding.decode(Holder<Double>.self, from: ["v": value]) {
            #expect(decoded.v.sign == ((try? ThroughText.decode(Holder<Double>.self, ["v": .number(d)]))?.v.sign))
        }
    }

    @Test("missing keys, nulls and wrong shapes fail the same way at the same path")
    func structuralErrors() {
        let inputs: [JSONValue] = [
            [:], ["street": "x"], ["street": "x", "lines": nil], ["street": "x", "lines": [[1, "2"]]],
            ["street": 5, "lines": []], ["street": "x", "lines": [1]], [1, 2], "text", nil,
        ]
        for input in inputs {
            #expect(
                outcome { try JSONValueCoding.decode(Profile.Address.self, from: input) }
                    == outcome { try ThroughText.decode(Profile.Address.self, input) }, "\(input)")
        }
        for input: JSONValue in [["kind": ["person": ["age": 3]]], ["kind": ["robot": ["model": "x"]]], ["kind": ["unknown": [:]]], ["kind": [:]]] {
            #expect(
                outcome { try JSONValueCoding.decode(Holder<Profile.Kind>.self, from: ["v": input["kind"] ?? nil]) }
                    == outcome { try ThroughText.decode(Holder<Profile.Kind>.self, ["v": input["kind"] ?? nil]) }, "\(input)")
        }
    }

    @Test("JSONValue and String parameters and results convert without coercion")
    func directTypes() throws {
        for value: JSONValue in [nil, true, 1, 1.5, "s", [1], ["a": nil]] {
            #expect(try JSONValueCoding.decode(JSONValue.self, from: value) == value)
            #expect(try JSONValueCoding.encode(value) == value)
            #expect(try ExposedResult.encode(value) == value)
        }
        #expect(try JSONValueCoding.decode(String.self, from: "s") == "s")
        for value: JSONValue in [nil, true, 1, 1.5, [1], ["a": "s"]] {
            #expect(outcome { try JSONValueCoding.decode(String.self, from: value) } == "typeMismatch []")
        }
        #expect(try JSONValueCoding.encode("s") == "s")
        #expect(try ExposedResult.encode(JSONValue?.none) == "")
        #expect(try ExposedResult.encode(JSONValue?.some(.null)) == nil)
        #expect(try ExposedResult.encode(String?.none) == "")
        #expect(try ExposedResult.encode(Profile.Address?.some(.init(street: "s", lines: []))) == ["lines": [], "street": "s"])
    }

    @Test("dictionaries with integer keys refuse other keys, as Foundation does")
    func integerKeys() throws {
        #expect(
            outcome { try JSONValueCoding.decode([Int: String].self, from: ["1": "a", "x": "b"]) }
                == outcome { try ThroughText.decode([Int: String].self, ["1": "a", "x": "b"]) })
        #expect(try JSONValueCoding.decode([Int: String].self, from: ["1": "a", "20": "b"]) == [1: "a", 20: "b"])
    }
}

private struct Holder<T: Codable & Equatable>: Codable, Equatable {
    var v: T
}

/// The encoder on an array of doubles, inside an object so the top-level shortcut for
/// arrays of numbers does not apply.
private enum JSONValueEncoderProbe {
    static func encode(_ values: [Double]) throws -> JSONValue {
        try JSONValueCoding.encode(Holder(v: values))
    }
}

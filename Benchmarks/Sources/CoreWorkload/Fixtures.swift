// SPDX-License-Identifier: MIT
import DSBridge

/// The inputs every benchmark and profile run shares: page frames, payloads of typical
/// sizes, and `Codable` values that mirror them.
public enum Fixtures {
    /// A ~100-byte JSON payload, what a typical page sends as a call's `data`.
    public static let payloadText =
        #"{"msg":"hello from the page, a typical small message","tag":1,"ok":true,"items":[1,2,3],"ratio":0.5}"#

    /// `payloadText` as a value.
    public static let payload: JSONValue = parse(payloadText)

    /// A `call` of `echo.syn` with the payload in an object `arg` (what new pages send).
    public static let callObjectFrame: [UInt8] = Array(callObjectText(id: 1_000_000_000).utf8)

    /// The same call with `arg` as a string holding the envelope (what the original
    /// dsbridge.js sends).
    public static let callStringFrame: [UInt8] = Array(callStringText(id: 1_000_000_000).utf8)

    /// Eight object-arg calls in one batch frame.
    public static let batchFrame: [UInt8] = Array(batchText(firstID: 1_000_000_000, count: 8).utf8)

    /// The call frame with `arg` as an object, for call `id`.
    public static func callObjectText(id: Int64) -> String {
        #"{"t":"call","id":\#(id),"method":"echo.syn","arg":{"data":\#(payloadText)}}"#
    }

    /// The call frame with `arg` as a JSON string, for call `id`.
    public static func callStringText(id: Int64) -> String {
        let envelope = JSONWriter.string(.string(#"{"data":\#(payloadText)}"#))
        return #"{"t":"call","id":\#(id),"method":"echo.syn","arg":\#(envelope)}"#
    }

    /// `count` object-arg calls with consecutive ids, as one batch frame.
    public static func batchText(firstID: Int64, count: Int) -> String {
        "[" + (0..<count).map { callObjectText(id: firstID + Int64($0)) }.joined(separator: ",") + "]"
    }

    /// One user record, about 200 bytes of JSON.
    public static let user = BenchUser(
        id: 4_211, name: "Ada Lovelace", email: "ada@example.org", active: true, score: 97.25,
        tags: ["admin", "beta", "math"], address: .init(street: "12 St James's Square", city: "London", zip: "SW1Y 4JH"))

    /// 100 user records, about 20 KiB of JSON.
    public static let userList = BenchUserList(
        users: (0..<100).map { i in
            var u = user
            u.id = i
            u.name = "User number \(i)"
            u.score = Double(i) * 1.5 + 0.25
            return u
        })

    /// The JSON text of `user` (as Foundation's encoder writes it, keys sorted).
    public static let userText: String = JSONWriter.string(encode(user))
    /// The JSON text of `userList`.
    public static let userListText: String = JSONWriter.string(encode(userList))

    /// Parses a fixture; fixtures are constants, so a failure is a bug in this file.
    static func parse(_ text: String) -> JSONValue {
        do {
            return try JSONParser.parse(text)
        } catch {
            fatalError("fixture is not JSON: \(error)")
        }
    }

    static func encode<T: Encodable>(_ value: T) -> JSONValue {
        do {
            return try JSONValueCoding.encode(value)
        } catch {
            fatalError("fixture does not encode: \(error)")
        }
    }
}

/// A typical structured parameter or result of an interface method.
public struct BenchUser: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    public var email: String
    public var active: Bool
    public var score: Double
    public var tags: [String]
    public var address: Address

    public struct Address: Codable, Sendable, Equatable {
        public var street: String
        public var city: String
        public var zip: String
    }
}

/// A larger structured value: a page of users.
public struct BenchUserList: Codable, Sendable, Equatable {
    public var users: [BenchUser]
}

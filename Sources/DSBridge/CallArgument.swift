// SPDX-License-Identifier: MIT

/// The DSBridge envelope of a call: `{"data": ANY, "_dscbstub": "dscbN"}` (PROTOCOL.md 2.2).
public struct CallArgument: Sendable, Equatable {
    /// The value handed to the native method.
    public var data: JSONValue
    /// The page callback's name, when the page wants completions.
    public var stub: String?

    public init(data: JSONValue, stub: String? = nil) {
        self.data = data
        self.stub = stub
    }

    /// Reads `arg` as an object, or as a string holding that JSON; omitted or `null` is
    /// `{"data": null}`.
    /// - Throws: ``CallFailure`` of kind `badArgument` for anything else.
    public init(wire arg: JSONValue?, maxDepth: Int = 128) throws(CallFailure) {
        switch arg {
        case .none, .some(.null):
            self.init(data: .null)
        case .some(.object(let members)):
            try self.init(members: members)
        case .some(.string(let text)):
            let parsed: JSONValue
            do {
                parsed = try JSONParser.parse(text, maxDepth: maxDepth)
            } catch {
                throw CallFailure(.badArgument, "arg is a string that is not a JSON object (\(error))")
            }
            guard case .object(let members) = parsed else {
                throw CallFailure(.badArgument, "arg is a string that is not a JSON object")
            }
            try self.init(members: members)
        case .some(let other):
            throw CallFailure(.badArgument, "arg must be an object like {\"data\": ...}, got \(other.kindName)")
        }
    }

    private init(members: JSONObject) throws(CallFailure) {
        var stub: String?
        if let s = members["_dscbstub"] {
            switch s {
            case .string(let name): stub = name
            case .null: stub = nil
            default: throw CallFailure(.badArgument, "_dscbstub must be a string")
            }
        }
        self.init(data: members["data"] ?? .null, stub: stub)
    }
}

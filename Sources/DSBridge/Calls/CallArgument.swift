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

extension CallArgument {
    /// A call's `arg` as a transport got it.
    enum Wire: Sendable {
        /// Parsed (a sync HTTP call's body).
        case value(JSONValue?)
        /// As text (a socket frame's slice), with where its `data` and `_dscbstub` are when
        /// the frame's decoder found them already (``PageMessage/Call/envelope``).
        case raw(RawJSON?, envelope: Envelope? = nil)
    }

    /// Where `data` and `_dscbstub` are in an object `arg` (offsets from its first byte; the
    /// last of a name given twice, as the parser keeps it).
    struct Envelope: Sendable, Equatable {
        var data: Range<Int>?
        var stub: Range<Int>?
        /// `data` is a string without escapes: its text is the bytes between its quotes.
        var dataIsPlainString = false
        /// `_dscbstub` is a string without escapes.
        var stubIsPlainString = false

        /// Notes the member `name` at `range` when it is `data` or `_dscbstub`;
        /// `plainString`: its value is a string without escapes.
        mutating func note(_ name: JSONScanner.MemberName, _ range: Range<Int>, plainString: Bool) {
            if name.is("data") {
                data = range
                dataIsPlainString = plainString
            } else if name.is("_dscbstub") {
                stub = range
                stubIsPlainString = plainString
            }
        }
    }

    init(_ wire: consuming Wire, maxDepth: Int) throws(CallFailure) {
        switch consume wire {
        case .value(let value): try self.init(wire: value, maxDepth: maxDepth)
        case .raw(let raw, let envelope): try self.init(raw: raw, envelope: envelope, maxDepth: maxDepth)
        }
    }

    /// Reads `arg` as it came in a frame, like ``init(wire:maxDepth:)`` but from its text:
    /// of an object `arg`, only `data` and `_dscbstub` are parsed (a name given twice counts
    /// once, the last, as the parser keeps it).
    public init(raw arg: RawJSON?, maxDepth: Int = 128) throws(CallFailure) {
        try self.init(raw: arg, envelope: nil, maxDepth: maxDepth)
    }

    /// ``init(raw:maxDepth:)``; `known`: where `data` and `_dscbstub` are, when the frame's
    /// decoder read the object `arg` already.
    init(raw arg: RawJSON?, envelope known: Envelope?, maxDepth: Int) throws(CallFailure) {
        guard let arg else {
            self.init(data: .null)
            return
        }
        guard let envelope = known ?? arg.bytes.withUnsafeBufferPointer({ Self.envelope(of: $0) }) else {
            // Not an object (null, a string holding the envelope, or wrong): as a value.
            let value: JSONValue
            do {
                value = try arg.value()
            } catch {
                throw CallFailure(.badArgument, "arg is not JSON (\(error))")
            }
            try self.init(wire: value, maxDepth: maxDepth)
            return
        }
        let base = arg.bytes.startIndex
        func parse(_ range: Range<Int>, plainString: Bool) throws(CallFailure) -> JSONValue {
            // A string without escapes (the `arg` was checked when it arrived): its text is
            // its bytes, as the parser would read them, without a scan of them again.
            if plainString {
                return .string(String(decoding: arg.bytes[(base + range.lowerBound + 1)..<(base + range.upperBound - 1)], as: UTF8.self))
            }
            do {
                return try JSONParser.parse(arg.bytes[(base + range.lowerBound)..<(base + range.upperBound)], maxDepth: .max)
            } catch {
                throw CallFailure(.badArgument, "arg is not JSON (\(error))")
            }
        }
        var stubName: String?
        if let stub = envelope.stub {
            switch try parse(stub, plainString: envelope.stubIsPlainString) {
            case .string(let name): stubName = name
            case .null: stubName = nil
            default: throw CallFailure(.badArgument, "_dscbstub must be a string")
            }
        }
        let data = try envelope.data.map { range throws(CallFailure) in try parse(range, plainString: envelope.dataIsPlainString) }
        self.init(data: data ?? .null, stub: stubName)
    }

    /// Where `data` and `_dscbstub` are in an object `arg` (offsets into `text`), or `nil`
    /// when `arg` is not an object.
    private static func envelope(of text: UnsafeBufferPointer<UInt8>) -> Envelope? {
        var s = JSONScanner(text, maxDepth: .max)
        s.skipWhitespace()
        guard s.peek == UInt8(ascii: "{") else { return nil }
        var envelope = Envelope()
        do throws(JSONParseError) {
            try s.members(depth: 1) { name, value in envelope.note(name, value.range, plainString: value.isPlainString) }
        } catch {
            return nil  // checked when it arrived: not reached; the value path reports it
        }
        return envelope
    }
}

// SPDX-License-Identifier: MIT

/// Turns one text frame from the page into messages, checking the frame as a whole
/// before any of its messages runs (PROTOCOL.md 2).
///
/// It reads the frame in two steps and builds no JSON tree: a ``JSONScanner`` pass checks
/// the whole text exactly as ``JSONParser`` would and notes where each message's fields
/// are; then each message is made from those fields. Only the small envelope fields (`t`,
/// `id`, `method`, `seq`, ...) are parsed; a call's `arg` stays a slice of the frame.
public struct PageFrameDecoder: Sendable {
    /// Deepest nesting accepted (the frame's top-level value is level 1).
    public var maxDepth: Int

    public init(maxDepth: Int = 128) {
        self.maxDepth = maxDepth
    }

    /// Decodes a frame.
    /// - Parameter helloSeen: whether this socket already had its `hello`; a first frame
    ///   must start with `hello`, and a second `hello` anywhere is a violation.
    public func decode(_ bytes: some Collection<UInt8>, helloSeen: Bool) throws(ProtocolViolation) -> [PageMessage] {
        try decode(frame: Array(bytes), helloSeen: helloSeen)
    }

    /// Decodes a frame; the calls' `arg` fields are slices of `frame`.
    public func decode(frame: [UInt8], helloSeen: Bool) throws(ProtocolViolation) -> [PageMessage] {
        // Most frames are one call in the layout dsbridge.js writes: read in one pass.
        if helloSeen, let call = CallFrameFastPath.call(in: frame, maxDepth: maxDepth) { return [.call(call)] }
        return try decodeAnyLayout(frame: frame, helloSeen: helloSeen)
    }

    /// Decodes a frame of any layout (what ``decode(frame:helloSeen:)`` does with a frame
    /// the one-pass reading leaves).
    func decodeAnyLayout(frame: [UInt8], helloSeen: Bool) throws(ProtocolViolation) -> [PageMessage] {
        let scanned = frame.withUnsafeBufferPointer { scan($0) }
        var messages: [PageMessage] = []
        switch scanned {
        case .success(.object(let fields)):
            // A lone message: no list of elements to go through.
            messages.append(try message(fields, in: frame))
        case .success(.batch(let elements)):
            messages.reserveCapacity(elements.count)
            for element in elements {
                guard case .envelope(let fields) = element else { throw ProtocolViolation("batch element is not an object") }
                messages.append(try message(fields, in: frame))
            }
        case .failure(.tooDeep(let limit)): throw ProtocolViolation("nesting deeper than \(limit) levels")
        case .failure(.invalid): throw ProtocolViolation("not JSON")
        case .failure(.notContainer): throw ProtocolViolation("frame is not an object or an array")
        }
        var sawHello = helloSeen
        for (index, m) in messages.enumerated() {
            if case .hello = m {
                if sawHello { throw ProtocolViolation("second hello") }
                if index != 0 { throw ProtocolViolation("expected hello") }
                sawHello = true
            } else if !sawHello {
                throw ProtocolViolation("expected hello")
            }
        }
        return messages
    }

    // MARK: step 1: check the text, note the fields

    /// Where the fields a message may have are in the frame (the last one, for a name
    /// given twice, as the parser keeps it), and which are strings with escapes.
    struct Fields {
        typealias Field = JSONScanner.MemberValue

        var t: Field?
        var id: Field?
        var method: Field?
        var arg: Field?
        var seq: Field?
        var v: Field?
        var token: Field?
        var auth: Field?
        var ack: Field?
        var traceparent: Field?

        /// Notes `value` as the field `name` names, when it is one of the envelope's.
        /// (Sorted by length first: a name is compared with at most three.)
        mutating func note(_ name: JSONScanner.MemberName, _ value: Field) {
            switch name.length {
            case 1: if name.is("t") { t = value } else if name.is("v") { v = value }
            case 2: if name.is("id") { id = value }
            case 3: if name.is("arg") { arg = value } else if name.is("seq") { seq = value } else if name.is("ack") { ack = value }
            case 4: if name.is("auth") { auth = value }
            case 5: if name.is("token") { token = value }
            case 6: if name.is("method") { method = value }
            case 11: if name.is("traceparent") { traceparent = value }
            default: break
            }
        }
    }

    /// A message of the frame, or a batch element that is not an object.
    enum Element {
        case envelope(Fields)
        case notObject
    }

    /// A frame's top-level value: one message, or a batch.
    enum Scanned {
        case object(Fields)
        case batch([Element])
    }

    enum ScanFailure: Error {
        case invalid
        case tooDeep(limit: Int)
        case notContainer
    }

    private func scan(_ input: UnsafeBufferPointer<UInt8>) -> Result<Scanned, ScanFailure> {
        var s = JSONScanner(input, maxDepth: maxDepth)
        do throws(JSONParseError) {
            s.skipWhitespace()
            var elements: [Element] = []
            switch s.peek {
            case UInt8(ascii: "{"):
                let object = try fields(&s, depth: 1)
                try s.expectEnd()
                return .success(.object(object))
            case UInt8(ascii: "["):
                if try s.enterArray(depth: 1) {
                    repeat {
                        if s.peek == UInt8(ascii: "{") {
                            elements.append(.envelope(try fields(&s, depth: 2)))
                        } else {
                            try s.skipValue(depth: 1)
                            elements.append(.notObject)
                        }
                    } while try s.nextMember(closing: UInt8(ascii: "]"))
                }
            default:
                try s.skipValue(depth: 0)
                try s.expectEnd()
                return .failure(.notContainer)
            }
            try s.expectEnd()
            return .success(.batch(elements))
        } catch .tooDeep(let limit) {
            return .failure(.tooDeep(limit: limit))
        } catch {
            return .failure(.invalid)
        }
    }

    /// Reads the object at the scanner (its level is `depth`), noting its known fields.
    private func fields(_ s: inout JSONScanner, depth: Int) throws(JSONParseError) -> Fields {
        var f = Fields()
        try s.members(depth: depth) { name, value in f.note(name, value) }
        return f
    }

    // MARK: step 2: make the messages

    private func message(_ f: Fields, in frame: [UInt8]) throws(ProtocolViolation) -> PageMessage {
        func value(_ field: Fields.Field?) throws(ProtocolViolation) -> JSONValue? {
            guard let field else { return nil }
            if let simple = Self.simpleValue(frame, field) { return simple }
            do {
                return try JSONParser.parse(frame[field.range], maxDepth: maxDepth)
            } catch {
                throw ProtocolViolation("not JSON")  // step 1 checked it: not reached
            }
        }
        guard let t = try value(f.t) else { throw ProtocolViolation("missing t") }
        guard case .string(let type) = t else { throw ProtocolViolation("t is not a string") }
        switch type {
        case "call":
            guard let id = try value(f.id)?.integerValue, id >= 1 else { throw ProtocolViolation("call needs an integer id >= 1") }
            guard case .string(let method)? = try value(f.method) else { throw ProtocolViolation("call needs a string method") }
            // `traceparent` is optional (PROTOCOL.md 2.2, revision 1.9); anything but a valid one,
            // as a string without escapes, is ignored.
            let trace = f.traceparent.flatMap { TraceContext(quotedIn: frame, $0.range) }
            return .call(.init(id: id, method: method, rawArg: f.arg.map { RawJSON(checked: frame[$0.range]) }, trace: trace))
        case "ack":
            guard let seq = try value(f.seq)?.integerValue else { throw ProtocolViolation("ack needs an integer seq") }
            return .ack(seq: seq)
        case "cancel":
            guard let id = try value(f.id)?.integerValue else { throw ProtocolViolation("cancel needs an integer id") }
            return .cancel(id: id)
        case "hello":
            guard let v = try value(f.v) else { throw ProtocolViolation("hello needs v") }
            guard let version = v.integerValue, version == 1 else { throw ProtocolViolation("unsupported version") }
            var hello = PageMessage.Hello(version: version)
            if let token = try value(f.token) {
                guard case .string(let s) = token else { throw ProtocolViolation("token is not a string") }
                hello.token = s
            }
            if let auth = try value(f.auth) {
                guard case .string(let s) = auth else { throw ProtocolViolation("auth is not a string") }
                hello.auth = s
            }
            if let ack = try value(f.ack) {
                guard let a = ack.integerValue else { throw ProtocolViolation("ack is not an integer") }
                hello.ack = max(0, a)
            }
            return .hello(hello)
        default:
            throw ProtocolViolation("unknown t \"\(type.prefix(32))\"")
        }
    }

    /// The field's value when it is a string without escapes or an integer of at most 18
    /// digits (the envelope's fields, nearly always), read without the parser: the same
    /// value ``JSONParser`` gives (step 1 checked the text). `nil` for anything else.
    static func simpleValue(_ frame: [UInt8], _ field: Fields.Field) -> JSONValue? {
        let range = field.range
        guard let first = range.first.map({ frame[$0] }) else { return nil }
        if first == UInt8(ascii: "\""), range.count >= 2 {
            // Step 1 read it as a string: its bytes are its text unless it had an escape.
            guard !field.hasEscapes else { return nil }
            return .string(String(decoding: frame[(range.lowerBound + 1)..<(range.upperBound - 1)], as: UTF8.self))
        }
        let negative = first == UInt8(ascii: "-")
        let digits = (negative ? range.lowerBound + 1 : range.lowerBound)..<range.upperBound
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var magnitude: Int64 = 0
        for index in digits {
            let digit = frame[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            magnitude = magnitude &* 10 &+ Int64(digit)
        }
        return .integer(negative ? -magnitude : magnitude)
    }
}

// SPDX-License-Identifier: MIT

/// The type (`t`) of a server message, as far as the bench cares.
enum ServerMessageType: Sendable {
    case welcome, ret, cb, invoke, hb
    /// Any other `t`, or none (HTTP answers have no `t`).
    case other
}

/// The fields of one server message the bench reads (PROTOCOL.md 2.1, 2.3, 4). Strings are
/// byte ranges into the frame, without quotes and without unescaping (the bench only
/// compares kinds, stubs, method names and tokens, which carry no escapes).
struct ServerMessageView {
    var type = ServerMessageType.other
    var seq: Int64 = 0
    var id: Int64 = 0
    var code: Int64 = 0
    var callbackId: Int64 = 0
    var lastCall: Int64 = 0
    var complete = false
    var resumed = false
    var cancelled = false
    /// `error` was present and not `null`.
    var hasError = false
    var errorKind: Range<Int>?
    var stub: Range<Int>?
    var method: Range<Int>?
    var token: Range<Int>?
    /// The raw JSON of `data` / `args`.
    var data: Range<Int>?
    var args: Range<Int>?
}

/// Why a frame could not be read.
enum ScanError: Error, Sendable {
    case malformed(at: Int)
    case notAnObject(at: Int)
}

/// Reads the messages of one frame (an object or an array of objects) without building a
/// JSON tree: a single pass over the bytes that records the fields of
/// ``ServerMessageView`` and skips everything else. Nested values are skipped, not
/// validated in depth; the server is trusted to send JSON (the bench is not its validator).
struct ServerMessageScanner {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var inArray = false
    private var finished = false

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The bytes of `range` (a string field of a message from this frame).
    func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[range])
    }

    /// Whether the string at `range` equals `literal`.
    func equals(_ range: Range<Int>?, _ literal: StaticString) -> Bool {
        guard let range, range.count == literal.utf8CodeUnitCount else { return false }
        let lit = UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for k in 0..<range.count where bytes[range.lowerBound + k] != lit[k] { return false }
        return true
    }

    /// The next message, or `nil` after the last.
    mutating func next() throws(ScanError) -> ServerMessageView? {
        if finished { return nil }
        skipSpace()
        if !inArray {
            guard index < bytes.count else { throw .malformed(at: index) }
            if bytes[index] == UInt8(ascii: "[") {
                inArray = true
                index += 1
                skipSpace()
                if peek() == UInt8(ascii: "]") {
                    finished = true
                    return nil
                }
            } else {
                finished = true
                return try object()
            }
        } else {
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
                skipSpace()
            case UInt8(ascii: "]"):
                finished = true
                return nil
            default:
                throw .malformed(at: index)
            }
        }
        return try object()
    }

    // MARK: grammar

    private func peek() -> UInt8 {
        index < bytes.count ? bytes[index] : 0
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8) throws(ScanError) {
        skipSpace()
        guard peek() == byte else { throw .malformed(at: index) }
        index += 1
    }

    private mutating func object() throws(ScanError) -> ServerMessageView {
        guard peek() == UInt8(ascii: "{") else { throw .notAnObject(at: index) }
        var view = ServerMessageView()
        try members { scanner, key throws(ScanError) in try scanner.field(key, into: &view) }
        return view
    }

    /// Walks the object whose `{` is at `index`, up to and past its `}`: for each member,
    /// `read` gets the key's range with `index` at the value, and must read or skip it.
    private mutating func members(
        _ read: (inout ServerMessageScanner, Range<Int>) throws(ScanError) -> Void
    ) throws(ScanError) {
        index += 1
        skipSpace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipSpace()
            let key = try string()
            try expect(UInt8(ascii: ":"))
            skipSpace()
            try read(&self, key)
            skipSpace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return
            default: throw .malformed(at: index)
            }
        }
    }

    /// Reads the value of `key` into `view` (or skips it).
    private mutating func field(_ key: Range<Int>, into view: inout ServerMessageView) throws(ScanError) {
        switch key.count {
        case 1 where bytes[key.lowerBound] == UInt8(ascii: "t"):
            let t = try stringOrSkip()
            view.type = classify(t)
        case 2 where equals(key, "id"):
            view.id = try integerOrSkip()
        case 3 where equals(key, "seq"):
            view.seq = try integerOrSkip()
        case 4 where equals(key, "code"):
            view.code = try integerOrSkip()
        case 4 where equals(key, "stub"):
            view.stub = try stringOrSkip()
        case 4 where equals(key, "data"):
            view.data = try skipValue()
        case 4 where equals(key, "args"):
            view.args = try skipValue()
        case 5 where equals(key, "token"):
            view.token = try stringOrSkip()
        case 5 where equals(key, "error"):
            if peek() == UInt8(ascii: "{") {
                view.hasError = true
                view.errorKind = try errorKind()
            } else {
                let r = try skipValue()
                view.hasError = !equals(r, "null")
            }
        case 6 where equals(key, "method"):
            view.method = try stringOrSkip()
        case 7 where equals(key, "resumed"):
            view.resumed = try boolOrSkip()
        case 8 where equals(key, "complete"):
            view.complete = try boolOrSkip()
        case 8 where equals(key, "lastCall"):
            view.lastCall = try integerOrSkip()
        case 9 where equals(key, "cancelled"):
            view.cancelled = try boolOrSkip()
        case 10 where equals(key, "callbackId"):
            view.callbackId = try integerOrSkip()
        default:
            _ = try skipValue()
        }
    }

    private func classify(_ t: Range<Int>?) -> ServerMessageType {
        if equals(t, "ret") { return .ret }
        if equals(t, "cb") { return .cb }
        if equals(t, "invoke") { return .invoke }
        if equals(t, "welcome") { return .welcome }
        if equals(t, "hb") { return .hb }
        return .other
    }

    /// `{"kind": K, ...}`: the range of K.
    private mutating func errorKind() throws(ScanError) -> Range<Int>? {
        var kind: Range<Int>?
        try members { scanner, key throws(ScanError) in
            if scanner.equals(key, "kind") { kind = try scanner.stringOrSkip() } else { try scanner.skipValue() }
        }
        return kind
    }

    /// A string at `index`: the range of its contents.
    private mutating func string() throws(ScanError) -> Range<Int> {
        guard peek() == UInt8(ascii: "\"") else { throw .malformed(at: index) }
        index += 1
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                let range = start..<index
                index += 1
                return range
            case UInt8(ascii: "\\"):
                index += 2
            default:
                index += 1
            }
        }
        throw .malformed(at: index)
    }

    private mutating func stringOrSkip() throws(ScanError) -> Range<Int>? {
        if peek() == UInt8(ascii: "\"") { return try string() }
        _ = try skipValue()
        return nil
    }

    private mutating func integerOrSkip() throws(ScanError) -> Int64 {
        var negative = false
        var i = index
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        var value: Int64 = 0
        var digits = 0
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39, digits < 18 {
            value = value * 10 + Int64(bytes[i] - 0x30)
            digits += 1
            i += 1
        }
        if digits == 0 {
            _ = try skipValue()
            return 0
        }
        index = i
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            _ = try skipValue()
        }
        return negative ? -value : value
    }

    private mutating func boolOrSkip() throws(ScanError) -> Bool {
        let r = try skipValue()
        return equals(r, "true")
    }

    /// Skips one JSON value; returns its range.
    @discardableResult
    private mutating func skipValue() throws(ScanError) -> Range<Int> {
        let start = index
        guard index < bytes.count else { throw .malformed(at: index) }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            _ = try string()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    _ = try string()
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 {
                        index += 1
                        return start..<index
                    }
                default:
                    break
                }
                index += 1
            }
            throw .malformed(at: index)
        default:
            // number or literal: up to the next delimiter
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D:
                    guard index > start else { throw .malformed(at: index) }
                    return start..<index
                default:
                    index += 1
                }
            }
        }
        guard index > start else { throw .malformed(at: index) }
        return start..<index
    }
}

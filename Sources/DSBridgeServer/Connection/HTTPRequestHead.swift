// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.x request head (request line and header fields) exactly as the client sent it,
/// parsed by dsbridged itself for plain-HTTP connections of the page port (pure, no I/O;
/// immutable). The path is judged as sent (PROTOCOL.md 1.2), for every request of a
/// kept-alive connection, not only the first.
///
/// A class: a request's head is handed to several holders (its exchange's headers, the
/// route, the upgrade); as a struct each copy retained and released every buffer it holds.
final class HTTPRequestHead: Sendable, Equatable {
    /// Why a head was refused; the answer's status and text.
    enum Failure: Error, Equatable, Sendable {
        /// Not `METHOD SP /TARGET SP HTTP/1.x`, or a malformed header field.
        case malformed(String)
        /// Request line and headers together are larger than the limit.
        case tooLarge(limit: Int)
        /// A WebSocket upgrade from an origin that is not allowed (PROTOCOL.md 1.1).
        case forbiddenOrigin

        var status: Int {
            switch self {
            case .malformed: 400
            case .tooLarge: 431
            case .forbiddenOrigin: 403
            }
        }

        var reason: String {
            switch self {
            case .malformed(let why): "bad request: \(why)"
            case .tooLarge(let limit): "request head larger than \(limit) bytes (--max-header-bytes)"
            case .forbiddenOrigin: "origin not allowed"
            }
        }
    }

    /// The request target as sent.
    let target: RawRequestTarget
    /// `1` for HTTP/1.1, `0` for HTTP/1.0.
    let minorVersion: Int
    /// The head's bytes (one copy); fields are ranges into them.
    private let bytes: [UInt8]
    /// Each header field: its name and its value (trimmed), in order.
    private let fieldRanges: [(name: Range<Int>, value: Range<Int>)]

    /// Header fields in order, names lower-cased, values trimmed.
    var fields: [(name: String, value: String)] {
        fieldRanges.map { (String(decoding: bytes[$0.name], as: UTF8.self).lowercased(), String(decoding: bytes[$0.value], as: UTF8.self)) }
    }

    static func == (a: HTTPRequestHead, b: HTTPRequestHead) -> Bool {
        a.target == b.target && a.minorVersion == b.minorVersion
            && a.fields.map(\.name) == b.fields.map(\.name) && a.fields.map(\.value) == b.fields.map(\.value)
    }

    var methodToken: String { target.method }

    /// The value of header `name` (lower-case), repeated fields joined with ", ".
    func header(_ name: StaticString) -> String? {
        var found: String?
        let length = name.utf8CodeUnitCount
        for field in fieldRanges where field.name.count == length && Self.matches(bytes, field.name, name) {
            let text = String(decoding: bytes[field.value], as: UTF8.self)
            found = found.map { $0 + ", " + text } ?? text
        }
        return found
    }

    /// Whether the head has a field named `name` (lower-case); no string is made.
    func hasHeader(_ name: StaticString) -> Bool {
        let length = name.utf8CodeUnitCount
        return fieldRanges.contains { $0.name.count == length && Self.matches(bytes, $0.name, name) }
    }

    // Look-ups compare bytes in place, with plain loops: a request's head is looked up a
    // dozen times, and closures capturing `self` would copy it (a retain and a release of
    // each of its buffers) each time. Names are `StaticString`s: compared through their
    // bytes' address (a `String` literal of up to 15 bytes is a small string, and walking
    // its UTF-8 view unpacks it byte by byte on every look-up).

    /// Calls `body` with the head's bytes and the range of each element of the
    /// comma-separated lists in the fields named `name` (lower-case), trimmed of optional
    /// white space, empty elements included, until it returns `false`.
    private func forEachListElement(of name: StaticString, _ body: ([UInt8], Range<Int>) -> Bool) {
        let length = name.utf8CodeUnitCount
        for field in fieldRanges where field.name.count == length && Self.matches(bytes, field.name, name) {
            let end = field.value.upperBound
            var start = field.value.lowerBound
            while start <= end {
                var stop = start
                while stop < end, bytes[stop] != UInt8(ascii: ",") { stop += 1 }
                var low = start
                var high = stop
                while low < high, bytes[low] == 32 || bytes[low] == 9 { low += 1 }
                while high > low, bytes[high - 1] == 32 || bytes[high - 1] == 9 { high -= 1 }
                guard body(bytes, low..<high) else { return }
                start = stop + 1
            }
        }
    }

    /// Whether a list header `name` (lower-case) has the element `token` (lower-case),
    /// compared without regard to case.
    private func listHeader(_ name: StaticString, contains token: StaticString) -> Bool {
        var found = false
        forEachListElement(of: name) { bytes, element in
            found = Self.matches(bytes, element, token)
            return !found
        }
        return found
    }

    /// Whether `bytes[range]` is `lowercased` whatever its ASCII case (callers compare the
    /// lengths first: most fields differ in length from the name looked up).
    private static func matches(_ bytes: [UInt8], _ range: Range<Int>, _ lowercased: StaticString) -> Bool {
        lowercased.withUTF8Buffer { wanted in
            guard range.count == wanted.count else { return false }
            var i = range.lowerBound
            for c in wanted {
                let a = bytes[i]
                if (a >= UInt8(ascii: "A") && a <= UInt8(ascii: "Z") ? a | 0x20 : a) != c { return false }
                i += 1
            }
            return true
        }
    }

    /// Where the head in `bytes` ends (just after its blank line), if it is complete.
    static func endOfHead(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var i = 0
        // memchr finds each line end (vectorised) instead of a loop testing every byte.
        while i < count, let found = memchr(base + i, 10, count - i) {
            i = base.distance(to: UnsafeRawPointer(found))
            // LF then (CR) LF ends the head.
            if i + 1 < count, bytes[i + 1] == 10 { return i + 2 }
            if i + 2 < count, bytes[i + 1] == 13, bytes[i + 2] == 10 { return i + 3 }
            i += 1
        }
        return nil
    }

    /// Parses a complete head (everything up to and including its blank line).
    init(parsing head: UnsafeRawBufferPointer) throws(Failure) {
        let bytes = Array(head)
        var requestLine: Range<Int>?
        var fieldRanges: [(name: Range<Int>, value: Range<Int>)] = []
        // One allocation for the field list in most requests (no pass to count the lines).
        fieldRanges.reserveCapacity(16)
        var lineStart = 0
        var i = 0
        let count = head.count
        while i < count, let base = head.baseAddress, let found = memchr(base + i, 10, count - i) {
            i = base.distance(to: UnsafeRawPointer(found))
            var end = i
            if end > lineStart, head[end - 1] == 13 { end -= 1 }
            let line = lineStart..<end
            lineStart = i + 1
            i += 1
            // Leading empty lines before a request line are ignored (RFC 9112 2.2).
            guard !line.isEmpty else { continue }
            guard requestLine != nil else {
                requestLine = line
                continue
            }
            // (Checked after the request line, as before: its failure is reported first.)
            fieldRanges.append((line, line))
        }
        guard let requestLine else { throw .malformed("no request line") }
        let lineBytes = bytes[requestLine]
        guard let spaces = RawRequestTarget.spaces(in: lineBytes) else {
            throw .malformed("the request line is not METHOD TARGET VERSION")
        }
        switch Self.httpVersion(head, (spaces.second + 1)..<requestLine.upperBound) {
        case 1: minorVersion = 1
        case 0: minorVersion = 0
        default:
            throw .malformed("only HTTP/1.0 and HTTP/1.1 are served")
        }
        let method = bytes[requestLine.lowerBound..<spaces.first]
        guard !method.isEmpty, method.allSatisfy(Self.isTokenCharacter) else { throw .malformed("bad method") }
        guard let target = RawRequestTarget(requestLine: lineBytes) else {
            throw .malformed("the target must start with /")
        }
        guard !target.path.contains(where: { $0 < 0x21 || $0 == 0x7f }), !(target.query ?? []).contains(where: { $0 < 0x21 || $0 == 0x7f }) else {
            throw .malformed("control characters in the target")
        }
        self.target = target
        for index in fieldRanges.indices { fieldRanges[index] = try Self.field(head, fieldRanges[index].name) }
        self.bytes = bytes
        self.fieldRanges = fieldRanges
    }

    /// The minor version of `HTTP/1.x` at `range` of `bytes` (`nil`: another version).
    private static func httpVersion(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
        guard range.count == 8, let base = bytes.baseAddress else { return nil }
        // One 8-byte comparison ("HTTP/1." then the digit) instead of a walk of two literals.
        let word = UInt64(littleEndian: (base + range.lowerBound).loadUnaligned(as: UInt64.self))
        let prefix: UInt64 = 0x00_2E_31_2F_50_54_54_48  // "HTTP/1." little-endian
        guard word & 0x00FF_FFFF_FFFF_FFFF == prefix else { return nil }
        switch word >> 56 {
        case UInt64(UInt8(ascii: "1")): return 1
        case UInt64(UInt8(ascii: "0")): return 0
        default: return nil
        }
    }

    /// One header line's name and trimmed value (read from the input in place: no array
    /// slices, no bounds checks per byte).
    private static func field(
        _ bytes: UnsafeRawBufferPointer, _ line: Range<Int>
    ) throws(Failure) -> (name: Range<Int>, value: Range<Int>) {
        let first = bytes[line.lowerBound]
        guard first != UInt8(ascii: " "), first != UInt8(ascii: "\t") else {
            throw .malformed("folded header lines are not accepted")
        }
        var colon = line.lowerBound
        while colon < line.upperBound, bytes[colon] != UInt8(ascii: ":") { colon += 1 }
        guard colon < line.upperBound else { throw .malformed("a header line without a colon") }
        let name = line.lowerBound..<colon
        guard !name.isEmpty else { throw .malformed("bad header name") }
        for i in name where !Self.isTokenCharacter(bytes[i]) { throw .malformed("bad header name") }
        var valueStart = colon + 1
        var valueEnd = line.upperBound
        while valueStart < valueEnd, bytes[valueStart] == 32 || bytes[valueStart] == 9 { valueStart += 1 }
        while valueEnd > valueStart, bytes[valueEnd - 1] == 32 || bytes[valueEnd - 1] == 9 { valueEnd -= 1 }
        if valueStart < valueEnd, let base = bytes.baseAddress, memchr(base + valueStart, 0, valueEnd - valueStart) != nil {
            throw .malformed("NUL in a header value")
        }
        return (name, valueStart..<valueEnd)
    }

    var isWebSocketUpgrade: Bool { listHeader("upgrade", contains: "websocket") }

    /// Whether `Connection` lists `upgrade` (a WebSocket handshake needs it, RFC 6455 4.1).
    var connectionHasUpgrade: Bool { listHeader("connection", contains: "upgrade") }

    /// Whether the connection may carry another request after this one (RFC 9112 9.3).
    var keepsAlive: Bool {
        if listHeader("connection", contains: "close") { return false }
        return minorVersion >= 1 || listHeader("connection", contains: "keep-alive")
    }

    /// The body's length: 0 without `Content-Length`; `nil` when the header is not one
    /// non-negative decimal number (repeated equal values are one value, RFC 9110 8.6).
    var contentLength: Int? {
        var first: Range<Int>?
        var valid = true
        forEachListElement(of: "content-length") { bytes, element in
            if let first {
                valid = bytes[element].elementsEqual(bytes[first])
                return valid
            }
            guard !element.isEmpty, element.count <= 18, bytes[element].allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                valid = false
                return false
            }
            first = element
            return true
        }
        guard valid else { return nil }
        guard let first else { return 0 }
        return bytes[first].reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    private static func isTokenCharacter(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}

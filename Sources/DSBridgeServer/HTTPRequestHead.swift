// SPDX-License-Identifier: MIT

/// An HTTP/1.x request head (request line and header fields) exactly as the client sent it,
/// parsed by dsbridged itself for plain-HTTP connections of the page port (pure value
/// type, no I/O). The path is judged as sent (PROTOCOL.md 1.2), for every request of a
/// kept-alive connection, not only the first.
struct HTTPRequestHead: Sendable, Equatable {
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
    func header(_ name: String) -> String? {
        var found: String?
        for field in fieldRanges where Self.isName(bytes[field.name], lowercased: name) {
            let value = String(decoding: bytes[field.value], as: UTF8.self)
            found = found.map { $0 + ", " + value } ?? value
        }
        return found
    }

    /// Whether a header name as sent is `lowercased` (names are ASCII tokens).
    private static func isName(_ sent: ArraySlice<UInt8>, lowercased: String) -> Bool {
        guard sent.count == lowercased.utf8.count else { return false }
        return zip(sent, lowercased.utf8).allSatisfy { a, b in
            (a >= UInt8(ascii: "A") && a <= UInt8(ascii: "Z") ? a | 0x20 : a) == b
        }
    }

    static func endOfHead(in bytes: UnsafeRawBufferPointer) -> Int? {
        var i = 0
        let count = bytes.count
        while i < count {
            if bytes[i] == 10 {
                // LF then (CR) LF ends the head.
                if i + 1 < count, bytes[i + 1] == 10 { return i + 2 }
                if i + 2 < count, bytes[i + 1] == 13, bytes[i + 2] == 10 { return i + 3 }
            }
            i += 1
        }
        return nil
    }

    /// Parses a complete head (everything up to and including its blank line).
    init(parsing head: UnsafeRawBufferPointer) throws(Failure) {
        let bytes = Array(head)
        var requestLine: Range<Int>?
        var fieldLines: [Range<Int>] = []
        var lineStart = 0
        var i = 0
        while i < bytes.count {
            guard bytes[i] == 10 else {
                i += 1
                continue
            }
            var end = i
            if end > lineStart, bytes[end - 1] == 13 { end -= 1 }
            let line = lineStart..<end
            lineStart = i + 1
            i += 1
            // Leading empty lines before a request line are ignored (RFC 9112 2.2).
            guard !line.isEmpty else { continue }
            guard requestLine != nil else {
                requestLine = line
                continue
            }
            fieldLines.append(line)
        }
        guard let requestLine else { throw .malformed("no request line") }
        let lineBytes = bytes[requestLine]
        let parts = lineBytes.split(separator: UInt8(ascii: " "), maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("the request line is not METHOD TARGET VERSION") }
        if parts[2].elementsEqual("HTTP/1.1".utf8) {
            minorVersion = 1
        } else if parts[2].elementsEqual("HTTP/1.0".utf8) {
            minorVersion = 0
        } else {
            throw .malformed("only HTTP/1.0 and HTTP/1.1 are served")
        }
        guard !parts[0].isEmpty, parts[0].allSatisfy(Self.isTokenCharacter) else { throw .malformed("bad method") }
        guard let target = RawRequestTarget(requestLine: lineBytes) else {
            throw .malformed("the target must start with /")
        }
        guard !target.path.contains(where: { $0 < 0x21 || $0 == 0x7f }), !(target.query ?? []).contains(where: { $0 < 0x21 || $0 == 0x7f }) else {
            throw .malformed("control characters in the target")
        }
        self.target = target
        var fieldRanges: [(name: Range<Int>, value: Range<Int>)] = []
        fieldRanges.reserveCapacity(fieldLines.count)
        for line in fieldLines { fieldRanges.append(try Self.field(bytes, line)) }
        self.bytes = bytes
        self.fieldRanges = fieldRanges
    }

    /// One header line's name and trimmed value.
    private static func field(_ bytes: [UInt8], _ line: Range<Int>) throws(Failure) -> (name: Range<Int>, value: Range<Int>) {
        let first = bytes[line.lowerBound]
        guard first != UInt8(ascii: " "), first != UInt8(ascii: "\t") else {
            throw .malformed("folded header lines are not accepted")
        }
        guard let colon = bytes[line].firstIndex(of: UInt8(ascii: ":")) else { throw .malformed("a header line without a colon") }
        let name = line.lowerBound..<colon
        guard !name.isEmpty, bytes[name].allSatisfy(Self.isTokenCharacter) else { throw .malformed("bad header name") }
        var valueStart = colon + 1
        var valueEnd = line.upperBound
        while valueStart < valueEnd, bytes[valueStart] == 32 || bytes[valueStart] == 9 { valueStart += 1 }
        while valueEnd > valueStart, bytes[valueEnd - 1] == 32 || bytes[valueEnd - 1] == 9 { valueEnd -= 1 }
        guard !bytes[valueStart..<valueEnd].contains(0) else { throw .malformed("NUL in a header value") }
        return (name, valueStart..<valueEnd)
    }

    var isWebSocketUpgrade: Bool {
        guard let upgrade = header("upgrade") else { return false }
        return upgrade.split(separator: ",").contains { trimmedWhiteSpace($0).lowercased() == "websocket" }
    }

    /// Whether the connection may carry another request after this one (RFC 9112 9.3).
    var keepsAlive: Bool {
        let options = (header("connection") ?? "").split(separator: ",").map { trimmedWhiteSpace($0).lowercased() }
        if options.contains("close") { return false }
        return minorVersion >= 1 || options.contains("keep-alive")
    }

    /// The body's length: 0 without `Content-Length`; `nil` when the header is not one
    /// non-negative decimal number (repeated equal values are one value, RFC 9110 8.6).
    var contentLength: Int? {
        guard let raw = header("content-length") else { return 0 }
        let values = Set(raw.split(separator: ",", omittingEmptySubsequences: false).map { trimmedWhiteSpace($0) })
        guard values.count == 1, let value = values.first, !value.isEmpty, value.utf8.count <= 18,
            value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
        else { return nil }
        return Int(value)
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

/// `text` without leading and trailing spaces and tabs (HTTP's optional white space).
private func trimmedWhiteSpace(_ text: Substring) -> String {
    var view = text.utf8[...]
    while let c = view.first, c == 32 || c == 9 { view = view.dropFirst() }
    while let c = view.last, c == 32 || c == 9 { view = view.dropLast() }
    return String(Substring(view))
}

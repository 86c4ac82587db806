// SPDX-License-Identifier: MIT
import TestSupport
import Testing

@testable import DSBridgeServer

/// The head parser reads bytes in place (issue 21: no string per field, no list split per
/// request); these tests hold it to the string-based reading it replaced, kept here as
/// ``ReferenceHead``, on tricky heads and on random mutations of them.
@Suite("HTTP request heads read as before (equivalence with the string-based parser)")
struct HTTPRequestHeadEquivalenceTests {
    static let tricky: [String] = [
        "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST /dsbridge/call HTTP/1.1\r\nHost: 127.0.0.1:80\r\nContent-Type: application/json\r\nX-DSBridge-Token: abc\r\nContent-Length: 42\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 5, 5\r\ncontent-length: 5\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 5,,5\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: \r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 05\r\nContent-Length: 5\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length:\t7\t\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 123456789012345678\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 1234567890123456789\r\n\r\n",
        "GET /dsbridge HTTP/1.1\r\nUpgrade: h2c, WebSocket\r\nConnection: keep-alive, Upgrade\r\n\r\n",
        "GET / HTTP/1.1\r\nConnection: ,close,\r\n\r\n",
        "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\nconnection: CLOSE\r\n\r\n",
        "GET / HTTP/1.0\r\nConnection:  keep-alive \r\n\r\n",
        "\r\n\r\nGET /a?b HTTP/1.1\nHost: y\n\n",
        "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1 x\r\n\r\n", "GET /a%20b HTTP/1.0\r\n\r\n",
        "GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", "GET / HTTP/1.1\r\n: empty name\r\n\r\n",
        "GET / HTTP/1.1\r\nX-A: one\r\nx-a: two\r\nX-a:three\r\n\r\n", "GET / HTTP/1.1\r\nNo colon\r\n\r\n",
        "G@T / HTTP/1.1\r\n\r\n", "GET http://x/ HTTP/1.1\r\n\r\n", "GET / HTTP/2.0\r\n\r\n",
        // The version is compared as one 8-byte word, line ends are found with memchr, a
        // value's NUL too: each edge of those.
        "GET / HTTP/1.2\r\n\r\n", "GET / HTTP/1.10\r\n\r\n", "GET / http/1.1\r\n\r\n", "GET / HTTP/1.\r\n\r\n",
        "GET / XTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\r\n\r\n", "GET / HTTP/1.1\r\nA: x\u{0}y\r\n\r\n",
        "GET / HTTP/1.1\r\nA: \u{0}\r\n\r\n", "GET / HTTP/1.1\r\nA\u{0}: y\r\n\r\n", "GET / HTTP/1.1\r\nA:\r\n\r\n",
    ]

    /// (`"a"` is stored as a single scalar, not as a pointer: both spellings are looked up.)
    private static let names: [StaticString] = [
        "host", "content-length", "x-dsbridge-token", "x-a", "upgrade", "connection", "origin", "missing", "a",
    ]

    private func check(_ text: [UInt8]) {
        let new = text.withUnsafeBytes { raw in Result { () throws(HTTPRequestHead.Failure) in try HTTPRequestHead(parsing: raw) } }
        let old = Result { () throws(HTTPRequestHead.Failure) in try ReferenceHead(text) }
        switch (new, old) {
        case (.failure(let a), .failure(let b)):
            #expect(a == b, "\(String(decoding: text, as: UTF8.self).debugDescription)")
        case (.success(let head), .success(let reference)):
            let shown = String(decoding: text, as: UTF8.self).debugDescription
            #expect(head.target == reference.target, "\(shown)")
            #expect(head.minorVersion == reference.minorVersion, "\(shown)")
            #expect(head.contentLength == reference.contentLength, "\(shown)")
            #expect(head.keepsAlive == reference.keepsAlive, "\(shown)")
            #expect(head.isWebSocketUpgrade == reference.isWebSocketUpgrade, "\(shown)")
            #expect(head.fields.map(\.name) == reference.fields.map(\.name), "\(shown)")
            #expect(head.fields.map(\.value) == reference.fields.map(\.value), "\(shown)")
            for name in Self.names {
                #expect(head.header(name) == reference.header(name.description), "\(name) in \(shown)")
                #expect(head.hasHeader(name) == (reference.header(name.description) != nil), "\(name) in \(shown)")
            }
        default:
            Issue.record("one parser refused what the other read: \(String(decoding: text, as: UTF8.self).debugDescription)")
        }
    }

    @Test("tricky heads read as before")
    func trickyHeads() {
        for text in Self.tricky { check(Array(text.utf8)) }
    }

    @Test("random mutations of heads read as before")
    func mutations() {
        var rng = SplitMix(seed: 2121)
        let seeds = Self.tricky.map { Array($0.utf8) }
        let alphabet = Array(" \t\r\n:,/?%0123456789aAcCeEkKlLoOsSwW-".utf8)
        for _ in 0..<4_000 {
            var text = seeds[Int(rng.next() % UInt64(seeds.count))]
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let at = Int(rng.next() % UInt64(text.count + 1))
                switch rng.next() % 3 {
                case 0: text.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: at)
                case 1: if at < text.count { text.remove(at: at) }
                default: if at < text.count { text[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))] }
                }
            }
            check(text)
        }
    }
}

/// The string-based head parser dsbridged used before (c. 8d5c586), kept as the reference.
private struct ReferenceHead {
    let target: RawRequestTarget
    let minorVersion: Int
    let fields: [(name: String, value: String)]

    init(_ bytes: [UInt8]) throws(HTTPRequestHead.Failure) {
        var requestLine: Range<Int>?
        var fieldLines: [Range<Int>] = []
        var lineStart = 0
        for i in bytes.indices where bytes[i] == 10 {
            var end = i
            if end > lineStart, bytes[end - 1] == 13 { end -= 1 }
            let line = lineStart..<end
            lineStart = i + 1
            guard !line.isEmpty else { continue }
            if requestLine == nil { requestLine = line } else { fieldLines.append(line) }
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
        guard !parts[0].isEmpty, parts[0].allSatisfy(Self.isToken) else { throw .malformed("bad method") }
        let targetParts = lineBytes.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard targetParts.count == 3, targetParts[targetParts.startIndex + 1].first == UInt8(ascii: "/"),
            let target = RawRequestTarget(requestLine: lineBytes)
        else { throw .malformed("the target must start with /") }
        guard !target.path.contains(where: { $0 < 0x21 || $0 == 0x7f }), !(target.query ?? []).contains(where: { $0 < 0x21 || $0 == 0x7f }) else {
            throw .malformed("control characters in the target")
        }
        self.target = target
        var fields: [(name: String, value: String)] = []
        for line in fieldLines {
            let first = bytes[line.lowerBound]
            guard first != UInt8(ascii: " "), first != UInt8(ascii: "\t") else { throw .malformed("folded header lines are not accepted") }
            guard let colon = bytes[line].firstIndex(of: UInt8(ascii: ":")) else { throw .malformed("a header line without a colon") }
            let name = bytes[line.lowerBound..<colon]
            guard !name.isEmpty, name.allSatisfy(Self.isToken) else { throw .malformed("bad header name") }
            var value = bytes[(colon + 1)..<line.upperBound]
            while let c = value.first, c == 32 || c == 9 { value = value.dropFirst() }
            while let c = value.last, c == 32 || c == 9 { value = value.dropLast() }
            guard !value.contains(0) else { throw .malformed("NUL in a header value") }
            fields.append((String(decoding: name, as: UTF8.self).lowercased(), String(decoding: value, as: UTF8.self)))
        }
        self.fields = fields
    }

    func header(_ name: String) -> String? {
        let values = fields.filter { $0.name == name }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    var isWebSocketUpgrade: Bool {
        guard let upgrade = header("upgrade") else { return false }
        return upgrade.split(separator: ",").contains { Self.trimmed($0).lowercased() == "websocket" }
    }

    var keepsAlive: Bool {
        let options = (header("connection") ?? "").split(separator: ",").map { Self.trimmed($0).lowercased() }
        if options.contains("close") { return false }
        return minorVersion >= 1 || options.contains("keep-alive")
    }

    var contentLength: Int? {
        guard let raw = header("content-length") else { return 0 }
        let values = Set(raw.split(separator: ",", omittingEmptySubsequences: false).map { Self.trimmed($0) })
        guard values.count == 1, let value = values.first, !value.isEmpty, value.utf8.count <= 18,
            value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
        else { return nil }
        return Int(value)
    }

    private static func trimmed(_ text: Substring) -> String {
        var view = text.utf8[...]
        while let c = view.first, c == 32 || c == 9 { view = view.dropFirst() }
        while let c = view.last, c == 32 || c == 9 { view = view.dropLast() }
        return String(Substring(view))
    }

    private static func isToken(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(c)
        }
    }
}

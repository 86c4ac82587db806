// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridgeServer

@Suite("HTTP request heads read by dsbridged (plain HTTP)")
struct HTTPRequestHeadTests {
    private func parse(_ text: String) throws(HTTPRequestHead.Failure) -> HTTPRequestHead {
        try parsedHead(text)
    }

    private func end(_ text: String) -> Int? {
        Array(text.utf8).withUnsafeBytes { HTTPRequestHead.endOfHead(in: $0) }
    }

    @Test("finds the end of a head after CRLF CRLF or LF LF, not before")
    func findsEndOfHead() {
        #expect(end("GET / HTTP/1.1\r\nHost: x\r\n\r\nBODY") == 27)
        #expect(end("GET / HTTP/1.1\nHost: x\n\nBODY") == 24)
        #expect(end("GET / HTTP/1.1\r\nHost: x\r\n") == nil)
        #expect(end("GET / HTTP/1.1\r\nHost: x\r\n\r") == nil)
    }

    @Test("keeps the target as sent and header names lower-cased, repeated fields joined")
    func parsesFields() throws {
        let head = try parse("GET /%73ub?a=1&b=%20c HTTP/1.1\r\nHost: x\r\nX-Thing:  one \r\nx-thing: two\r\n\r\n")
        #expect(head.methodToken == "GET")
        #expect(Array(head.target.path) == Array("/%73ub".utf8))
        #expect(head.target.query.map(Array.init) == Array("a=1&b=%20c".utf8))
        #expect(head.header("x-thing") == "one, two")
        #expect(head.header("host") == "x")
        #expect(head.header("missing") == nil)
        #expect(head.minorVersion == 1)
    }

    @Test("header names match whatever their case; the fields list keeps names lower-cased")
    func headerNameCase() throws {
        let head = try parse("POST /dsbridge/call HTTP/1.1\r\nX-DSBridge-Token: t1\r\nORIGIN: https://a\r\ncontent-LENGTH: 2\r\n\r\n")
        #expect(head.header("x-dsbridge-token") == "t1")
        #expect(head.header("origin") == "https://a")
        #expect(head.header("x-dsbridge-toke") == nil)
        #expect(head.fields.map(\.name) == ["x-dsbridge-token", "origin", "content-length"])
    }

    @Test("request headers read from the head: Content-Length as one number, the whole set for an authenticator")
    func requestHeaders() throws {
        let head = try parse("POST / HTTP/1.1\r\nContent-Length: 5, 5\r\nCookie: a=1\r\ncookie: b=2\r\n\r\n")
        let headers = RequestHeaders(head: head, contentLength: head.contentLength)
        #expect(headers["content-length"] == "5")
        #expect(headers["cookie"] == "a=1, b=2")
        #expect(headers["origin"] == nil)
        #expect(headers.dictionary == ["content-length": "5", "cookie": "a=1, b=2"])
    }

    @Test("keep-alive follows the version and the Connection options")
    func keepAlive() throws {
        #expect(try parse("GET / HTTP/1.1\r\n\r\n").keepsAlive)
        #expect(try !parse("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n").keepsAlive)
        #expect(try !parse("GET / HTTP/1.0\r\n\r\n").keepsAlive)
        #expect(try parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").keepsAlive)
    }

    @Test("Content-Length must be one decimal number; equal repeats are one")
    func contentLength() throws {
        #expect(try parse("POST / HTTP/1.1\r\n\r\n").contentLength == 0)
        #expect(try parse("POST / HTTP/1.1\r\nContent-Length: 42\r\n\r\n").contentLength == 42)
        #expect(try parse("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n").contentLength == 5)
        #expect(try parse("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n").contentLength == nil)
        #expect(try parse("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n").contentLength == nil)
        #expect(try parse("POST / HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n").contentLength == nil)
        #expect(try parse("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n").contentLength == nil)
    }

    @Test("only an Upgrade naming websocket goes to libwebsockets")
    func upgrade() throws {
        #expect(try parse("GET /dsbridge HTTP/1.1\r\nUpgrade: WebSocket\r\nConnection: Upgrade\r\n\r\n").isWebSocketUpgrade)
        #expect(try !parse("GET / HTTP/1.1\r\nUpgrade: h2c\r\n\r\n").isWebSocketUpgrade)
        #expect(try !parse("GET / HTTP/1.1\r\n\r\n").isWebSocketUpgrade)
    }

    @Test(
        "refuses malformed heads with 400",
        arguments: [
            "GET /\r\n\r\n", "GET / HTTP/2.0\r\n\r\n", "GET http://x/ HTTP/1.1\r\n\r\n", "G@T / HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nNo colon here\r\n\r\n", "GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",
            "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", "GET /a\u{7f}b HTTP/1.1\r\n\r\n", "\r\n\r\n",
        ])
    func refusesMalformed(text: String) {
        #expect(throws: HTTPRequestHead.Failure.self) { try parse(text) }
        do {
            _ = try parse(text)
        } catch {
            #expect(error.status == 400)
        }
    }

    @Test("an answer is encoded with its length, headers, and no body for HEAD")
    func encodesAnswers() {
        var answer = HTTPAnswer.text(404, "not found")
        answer.headers = [("Location", "/x/")]
        let full = String(decoding: answer.encoded(extraHeaders: [("Vary", "Origin")], omitBody: false, closing: true), as: UTF8.self)
        #expect(full.hasPrefix("HTTP/1.1 404 Not Found\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: 10\r\n"))
        #expect(full.contains("location: /x/\r\nvary: Origin\r\n"))
        #expect(full.contains("x-content-type-options: nosniff\r\n"))
        #expect(full.contains("connection: close\r\n"))
        #expect(full.hasSuffix("\r\n\r\nnot found\n"))
        let head = String(decoding: answer.encoded(extraHeaders: [], omitBody: true, closing: false), as: UTF8.self)
        #expect(head.hasSuffix("\r\n\r\n"))
        #expect(head.contains("content-length: 10\r\n"))
        #expect(!head.contains("connection:"))
        answer.body = []
        let empty = String(decoding: answer.encoded(extraHeaders: [], omitBody: false, closing: false), as: UTF8.self)
        #expect(empty.contains("\r\ncontent-length: 0\r\n") && empty.hasSuffix("no-store\r\n\r\n"))
    }
}

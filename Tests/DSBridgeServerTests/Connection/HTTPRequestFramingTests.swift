// SPDX-License-Identifier: MIT
import Foundation
import Testing

@testable import DSBridgeServer

@Suite("How a request head frames its body (PROTOCOL.md 1, revision 1.14)")
struct HTTPRequestFramingTests {
    private func parse(_ text: String) throws(HTTPRequestHead.Failure) -> HTTPRequestHead {
        try parsedHead(text)
    }

    private func framing(_ text: String) throws(HTTPRequestHead.Failure) -> HTTPRequestHead.BodyFraming {
        try parse(text).bodyFraming()
    }

    private func refusal(_ text: String) -> String? {
        do {
            _ = try framing(text)
            return nil
        } catch {
            #expect(error.status == 400)
            return error.reason
        }
    }

    private static let upgrade =
        "GET /dsbridge HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
        + "Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\nSec-WebSocket-Protocol: dsbridge.v1\r\n"

    @Test("what RFC-following clients send is framed as before")
    func servesOrdinaryRequests() throws {
        #expect(try framing("GET / HTTP/1.1\r\nHost: x\r\n\r\n") == .length(0))
        #expect(try framing("POST /dsbridge/call HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n") == .length(12))
        #expect(try framing("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n") == .length(5))
        #expect(try framing("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n") == .transferEncoded)
        #expect(try framing("GET /healthz HTTP/1.0\r\n\r\n") == .length(0))
        #expect(try framing("GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n") == .length(0))
        #expect(try framing(Self.upgrade + "\r\n") == .length(0))
        #expect(try framing(Self.upgrade + "Content-Length: 0\r\n\r\n") == .length(0))
    }

    @Test(
        "Content-Length that two readers could take differently is refused",
        arguments: [
            "Content-Length: 0\r\nContent-Length: 53", "Content-Length: 53\r\nContent-Length: 0", "Content-Length: 0, 53",
            "Content-Length: 0x35", "Content-Length: +53", "Content-Length: -1", "Content-Length: 1e3",
            "Content-Length: 1844674407370955161653", "Content-Length:", "Content-Length: 5 5",
        ])
    func refusesBadContentLength(line: String) {
        #expect(refusal("GET /healthz HTTP/1.1\r\nHost: x\r\n\(line)\r\n\r\n") == "bad request: Content-Length is not one decimal number")
    }

    @Test("whitespace before a header's colon is refused (RFC 9112 5.1)")
    func refusesSpaceBeforeColon() {
        #expect(throws: HTTPRequestHead.Failure.malformed("bad header name")) {
            try parse("GET / HTTP/1.1\r\nHost: x\r\nContent-Length : 53\r\n\r\n")
        }
    }

    @Test("Content-Length with Transfer-Encoding is refused, in either order")
    func refusesLengthWithTransferEncoding() {
        let reason = "bad request: Content-Length and Transfer-Encoding together"
        #expect(refusal("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n") == reason)
        #expect(refusal("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n") == reason)
    }

    @Test("an HTTP/1.1 request needs exactly one Host; HTTP/1.0 may leave it out")
    func requiresOneHost() {
        #expect(refusal("GET / HTTP/1.1\r\n\r\n") == "bad request: an HTTP/1.1 request needs a Host header")
        #expect(refusal("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == "bad request: more than one Host (or a Host with a comma or space)")
        #expect(refusal("GET / HTTP/1.1\r\nHost: a, b\r\n\r\n") == "bad request: more than one Host (or a Host with a comma or space)")
        #expect(refusal("GET / HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n") == "bad request: more than one Host (or a Host with a comma or space)")
        #expect(refusal("GET / HTTP/1.0\r\n\r\n") == nil)
    }

    @Test("a WebSocket upgrade with a body, or in HTTP/1.0, is refused")
    func refusesUpgradeWithBody() {
        #expect(refusal(Self.upgrade + "Content-Length: 25\r\n\r\n") == "bad request: a WebSocket upgrade has no body")
        #expect(refusal(Self.upgrade + "Transfer-Encoding: chunked\r\n\r\n") == "bad request: a WebSocket upgrade has no body")
        let old = Self.upgrade.replacingOccurrences(of: "HTTP/1.1", with: "HTTP/1.0")
        #expect(refusal(old + "\r\n") == "bad request: a WebSocket upgrade needs HTTP/1.1")
    }
}

// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridgeServer

/// The admin listener frames requests as the page port does (PROTOCOL.md 1.3, 6): the
/// request smuggling shapes libwebsockets' parser let through get 400 and a close.
@Suite("Admin listener: request framing over a real socket")
struct AdminFramingTests {
    private static let hidden = "GET /admin/hidden-probe HTTP/1.1\r\nHost: x\r\n\r\n"
    private static let healthz = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"

    @Test(
        "a Content-Length two readers could take differently gets 400 and a close; the request behind it is not answered",
        arguments: [
            "Content-Length: 0\r\nContent-Length: \(hidden.utf8.count)", "Content-Length: 0x\(String(hidden.utf8.count, radix: 16))",
            "Content-Length : \(hidden.utf8.count)", "Content-Length: +\(hidden.utf8.count)",
            "Content-Length: \(hidden.utf8.count)\r\nTransfer-Encoding: chunked",
        ])
    func refusesSmuggling(lines: String) throws {
        let server = try RunningServer()
        defer { server.stop() }
        let socket = try TestSocket(port: server.adminPort)
        try socket.write(Array(("GET /healthz HTTP/1.1\r\nHost: x\r\n\(lines)\r\n\r\n" + Self.hidden + Self.healthz).utf8))
        let answer = try socket.readAnswer()
        #expect(answer.head.hasPrefix("HTTP/1.1 400"), "\(answer.head)")
        #expect(answer.head.lowercased().contains("connection: close"))
        #expect(try socket.readToEnd().isEmpty)
    }

    @Test("keep-alive and pipelining still work: two /healthz in one write get two 200s")
    func servesPipelined() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let socket = try TestSocket(port: server.adminPort)
        let last = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        try socket.write(Array((Self.healthz + last).utf8))
        #expect(try socket.readAnswer().head.hasPrefix("HTTP/1.1 200"))
        #expect(try socket.readAnswer().head.hasPrefix("HTTP/1.1 200"))
        #expect(try socket.readToEnd().isEmpty)
    }
}

// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridgeServer

/// The opening handshake of the session channel (RFC 6455 4.2, PROTOCOL.md 1), on parsed heads.
@Suite("WebSocketHandshake: the upgrade answer and its refusals")
struct WebSocketHandshakeTests {
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="

    private func head(
        _ requestLine: String = "GET /dsbridge HTTP/1.1", dropping: Set<String> = [], with extra: [String] = []
    ) throws -> HTTPRequestHead {
        var lines = [
            "Host: 127.0.0.1", "Upgrade: websocket", "Connection: keep-alive, Upgrade",
            "Sec-WebSocket-Key: \(Self.key)", "Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: dsbridge.v1",
        ].filter { line in !dropping.contains(where: { line.lowercased().hasPrefix($0.lowercased() + ":") }) }
        lines += extra
        let text = ([requestLine] + lines).joined(separator: "\r\n") + "\r\n\r\n"
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { try HTTPRequestHead(parsing: $0) }
    }

    private func refusal(_ head: HTTPRequestHead) -> WebSocketHandshake.Refusal? {
        if case .failure(let refusal) = WebSocketHandshake.answer(to: head) { return refusal }
        return nil
    }

    @Test("the accept value is RFC 6455's worked example")
    func acceptValueOfTheRFCExample() {
        #expect(WebSocketHandshake.acceptValue(forKey: Self.key) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test("a valid upgrade gets 101 with the accept value and the subprotocol")
    func validUpgradeIsAnswered() throws {
        guard case .success(let bytes) = WebSocketHandshake.answer(to: try head()) else {
            Issue.record("refused")
            return
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(text.contains("\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
        #expect(text.contains("\r\nSec-WebSocket-Protocol: dsbridge.v1\r\n"))
        #expect(text.contains("\r\nUpgrade: websocket\r\n") && text.contains("\r\nConnection: Upgrade\r\n"))
        #expect(text.hasSuffix("\r\n\r\n"))
    }

    @Test("dsbridge.v1 anywhere in the offered list is taken; a query is allowed")
    func subprotocolInAList() throws {
        let offered = try head(dropping: ["sec-websocket-protocol"], with: ["Sec-WebSocket-Protocol: chat, dsbridge.v1"])
        #expect(refusal(offered) == nil)
        #expect(refusal(try head("GET /dsbridge?x=1 HTTP/1.1")) == nil)
    }

    @Test("refusals: 404 elsewhere, 400 for a POST, no Connection: Upgrade, a bad key or no dsbridge.v1; 426 for another version")
    func refusals() throws {
        #expect(refusal(try head("GET /other HTTP/1.1"))?.status == 404)
        #expect(refusal(try head("POST /dsbridge HTTP/1.1"))?.status == 400)
        #expect(refusal(try head(dropping: ["connection"], with: ["Connection: keep-alive"]))?.status == 400)
        let noVersion = refusal(try head(dropping: ["sec-websocket-version"]))
        #expect(noVersion?.status == 426)
        #expect(noVersion?.headers.first?.0 == "Sec-WebSocket-Version" && noVersion?.headers.first?.1 == "13")
        #expect(refusal(try head(dropping: ["sec-websocket-version"], with: ["Sec-WebSocket-Version: 8"]))?.status == 426)
        #expect(refusal(try head(dropping: ["sec-websocket-key"]))?.status == 400)
        #expect(refusal(try head(dropping: ["sec-websocket-key"], with: ["Sec-WebSocket-Key: abc"]))?.status == 400)
        let noProtocol = refusal(try head(dropping: ["sec-websocket-protocol"]))
        #expect(noProtocol?.status == 400)
        #expect(noProtocol?.reason == "WebSocket upgrade must offer subprotocol dsbridge.v1")
        #expect(refusal(try head(dropping: ["sec-websocket-protocol"], with: ["Sec-WebSocket-Protocol: dsbridge.v10"]))?.status == 400)
    }

    @Test("the server's frame heads use the shortest length encoding")
    func frameHeads() {
        var out: [UInt8] = []
        WebSocketFrameWriter.append(.text, length: 125, to: &out)
        #expect(out == [0x81, 125])
        out = []
        WebSocketFrameWriter.append(.text, length: 126, to: &out)
        #expect(out == [0x81, 126, 0, 126])
        out = []
        WebSocketFrameWriter.append(.close, length: 65_536, to: &out)
        #expect(out == [0x88, 127, 0, 0, 0, 0, 0, 1, 0, 0])
        #expect(WebSocketFrameWriter.closePayload(code: 1009, reason: "too big") == [0x03, 0xF1] + Array("too big".utf8))
    }
}

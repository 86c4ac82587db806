// SPDX-License-Identifier: MIT
import CLibWebSockets
import Foundation

/// The server's side of a WebSocket opening handshake on the page port (RFC 6455 4.2,
/// PROTOCOL.md 1): checks an upgrade request head and makes the `101` answer, or says why
/// the upgrade is refused. Pure (no I/O); the origin is checked by the caller first.
enum WebSocketHandshake {
    /// The path of the session channel.
    static let path = "/dsbridge"
    /// The subprotocol a page must offer.
    static let subprotocol = "dsbridge.v1"

    /// Why an upgrade is refused: the HTTP answer's status, its text, and any header it
    /// must carry (`426` names the version spoken).
    struct Refusal: Error, Equatable {
        let status: Int
        let reason: String
        var headers: [(String, String)] = []

        static func == (a: Refusal, b: Refusal) -> Bool {
            a.status == b.status && a.reason == b.reason && a.headers.map(\.0) == b.headers.map(\.0)
                && a.headers.map(\.1) == b.headers.map(\.1)
        }
    }

    /// The `101 Switching Protocols` answer to `head`, or why it is refused. Checked in this
    /// order: the path (404), the method (400), `Connection: upgrade` (400), the version
    /// (426 unless 13), the key (400 unless 16 bytes in base64), the subprotocol (400).
    static func answer(to head: HTTPRequestHead) -> Result<[UInt8], Refusal> {
        guard head.target.decodedPath.elementsEqual(path.utf8) else {
            return .failure(Refusal(status: 404, reason: "no WebSocket endpoint here (the session channel is \(path))"))
        }
        guard head.methodToken == "GET" else {
            return .failure(Refusal(status: 400, reason: "a WebSocket upgrade must be a GET request"))
        }
        guard head.connectionHasUpgrade else {
            return .failure(Refusal(status: 400, reason: "a WebSocket upgrade needs \"Connection: Upgrade\""))
        }
        guard head.header("sec-websocket-version")?.trimmingCharacters(in: .whitespaces) == "13" else {
            return .failure(
                Refusal(
                    status: 426, reason: "WebSocket version 13 is required (Sec-WebSocket-Version)",
                    headers: [("Sec-WebSocket-Version", "13")]))
        }
        guard let key = head.header("sec-websocket-key")?.trimmingCharacters(in: .whitespaces),
            Data(base64Encoded: key)?.count == 16
        else {
            return .failure(Refusal(status: 400, reason: "Sec-WebSocket-Key must be 16 bytes in base64"))
        }
        guard offers(subprotocol, in: head.header("sec-websocket-protocol")) else {
            return .failure(Refusal(status: 400, reason: "WebSocket upgrade must offer subprotocol \(subprotocol)"))
        }
        let text =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(acceptValue(forKey: key))\r\nSec-WebSocket-Protocol: \(subprotocol)\r\n\r\n"
        return .success(Array(text.utf8))
    }

    /// Whether the comma-separated list `offered` names `wanted` (exactly, as RFC 6455
    /// tokens are compared).
    static func offers(_ wanted: String, in offered: String?) -> Bool {
        guard let offered else { return false }
        return offered.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == wanted }
    }

    /// `Sec-WebSocket-Accept` for `key`: base64 of the SHA-1 of the key and RFC 6455's GUID.
    static func acceptValue(forKey key: String) -> String {
        let input = Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        input.withUnsafeBufferPointer { source in
            digest.withUnsafeMutableBufferPointer { out in
                _ = lws_SHA1(source.baseAddress, source.count, out.baseAddress)
            }
        }
        return Data(digest).base64EncodedString()
    }
}

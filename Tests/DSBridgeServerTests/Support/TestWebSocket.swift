// SPDX-License-Identifier: MIT
import DSBridge
import Foundation

/// A minimal RFC 6455 client over ``TestSocket``, enough to speak PROTOCOL.md and to
/// misbehave on purpose (binary frames, fragments, oversize messages).
final class TestWebSocket {
    enum Event: Equatable {
        case text(String)
        case close(code: Int, reason: String)
    }

    let socket: TestSocket
    /// Whether pings are answered (a page that stopped answering plays dead).
    var answersPings = true
    /// Pings received so far.
    private(set) var pingsSeen = 0
    /// Messages received but not yet consumed, flattened from batches.
    private var pending: [JSONValue] = []

    /// Opens `/dsbridge` (or `path`) offering `protocols`.
    convenience init(port: Int, path: String = "/dsbridge", protocols: [String]? = ["dsbridge.v1"], origin: String? = nil) throws {
        try self.init(socket: TestSocket(port: port), port: port, path: path, protocols: protocols, origin: origin)
    }

    /// Upgrades `socket`, which may have carried HTTP requests before (their answers read).
    init(socket: TestSocket, port: Int, path: String = "/dsbridge", protocols: [String]? = ["dsbridge.v1"], origin: String? = nil) throws {
        self.socket = socket
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let protocols { request += "Sec-WebSocket-Protocol: \(protocols.joined(separator: ", "))\r\n" }
        if let origin { request += "Origin: \(origin)\r\n" }
        request += "\r\n"
        try socket.write(Array(request.utf8))
        let head = String(decoding: try socket.read(until: Array("\r\n\r\n".utf8)), as: UTF8.self)
        guard head.hasPrefix("HTTP/1.1 101") else { throw TestClientError.badHandshake(head.components(separatedBy: "\r\n").first ?? head) }
    }

    /// Sends one frame; client frames are masked as the RFC requires.
    func sendFrame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true) throws {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let n = payload.count
        if n < 126 {
            frame.append(0x80 | UInt8(n))
        } else if n < 65536 {
            frame.append(0x80 | 126)
            frame.append(contentsOf: [UInt8(n >> 8), UInt8(n & 0xFF)])
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((n >> shift) & 0xFF)) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame.append(contentsOf: mask)
        frame.reserveCapacity(frame.count + n)
        for (i, b) in payload.enumerated() { frame.append(b ^ mask[i & 3]) }
        try socket.write(frame)
    }

    func send(_ text: String) throws { try sendFrame(opcode: 1, Array(text.utf8)) }

    func send(_ value: JSONValue) throws { try send(value.description) }

    /// The next text message or close, answering pings.
    func nextEvent() throws -> Event {
        while true {
            let head = try socket.read(2)
            let opcode = head[0] & 0x0F
            var length = Int(head[1] & 0x7F)
            if length == 126 {
                let b = try socket.read(2)
                length = Int(b[0]) << 8 | Int(b[1])
            } else if length == 127 {
                let b = try socket.read(8)
                length = b.reduce(0) { $0 << 8 | Int($1) }
            }
            let payload = try socket.read(length)
            switch opcode {
            case 1: return .text(String(decoding: payload, as: UTF8.self))
            case 8:
                let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 1005
                let reason = payload.count > 2 ? String(decoding: payload[2...], as: UTF8.self) : ""
                return .close(code: code, reason: reason)
            case 9:
                pingsSeen += 1
                if answersPings { try sendFrame(opcode: 10, payload) }
            default: continue
            }
        }
    }

    /// The next server message (a batch is split into its messages).
    func nextMessage() throws -> JSONValue {
        while pending.isEmpty {
            switch try nextEvent() {
            case .text(let text):
                let value = try JSONParser.parse(text)
                if case .array(let items) = value { pending.append(contentsOf: items) } else { pending.append(value) }
            case .close(let code, let reason):
                throw TestWebSocketClosed(code: code, reason: reason)
            }
        }
        return pending.removeFirst()
    }

    /// Reads until the server closes; returns its close code (skipping other messages).
    func closeCode() throws -> Int {
        while true {
            do {
                _ = try nextMessage()
            } catch let closed as TestWebSocketClosed {
                return closed.code
            }
        }
    }

    /// Every message until the server closes, and the close code.
    func messagesUntilClose() throws -> (messages: [JSONValue], code: Int) {
        var messages: [JSONValue] = []
        while true {
            do {
                messages.append(try nextMessage())
            } catch let closed as TestWebSocketClosed {
                return (messages, closed.code)
            }
        }
    }

    /// Sends `hello` and returns the `welcome`.
    @discardableResult
    func hello(token: String? = nil, ack: Int64 = 0) throws -> JSONValue {
        var h: JSONObject = ["t": "hello", "v": 1]
        if let token { h["token"] = .string(token) }
        if ack > 0 { h["ack"] = .integer(ack) }
        try send(.object(h))
        return try nextMessage()
    }
}

struct TestWebSocketClosed: Error {
    let code: Int
    let reason: String
}

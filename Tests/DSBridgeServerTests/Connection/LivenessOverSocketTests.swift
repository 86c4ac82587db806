// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Testing

/// Hello timeout, heartbeat and the dead-peer hang-up, measured over real sockets
/// (PROTOCOL.md 2, 2.3): the server hangs up after 2 × `heartbeat` without a frame from the
/// page, never earlier, and any frame (text or pong) keeps the page alive.
@Suite("Liveness over the socket: hello timeout, pings, heartbeats, hang-up")
struct LivenessOverSocketTests {
    /// Reads until the server ends the connection; the seconds since `start` and whether a
    /// close frame came first.
    private func readUntilGone(_ ws: TestWebSocket, since start: Date) -> (seconds: Double, closeFrame: Int?) {
        while true {
            do {
                if case .close(let code, _) = try ws.nextEvent() { return (Date().timeIntervalSince(start), code) }
            } catch {
                return (Date().timeIntervalSince(start), nil)
            }
        }
    }

    @Test("no hello within helloTimeoutMs: close 4000 hello timeout, at that time")
    func helloTimeout() throws {
        let server = try RunningServer(configure: { $0.helloTimeoutMs = 300 })
        defer { server.stop() }
        let start = Date()
        let ws = try TestWebSocket(port: server.port)
        let event = try ws.nextEvent()
        let elapsed = Date().timeIntervalSince(start)
        #expect(event == .close(code: 4000, reason: "hello timeout"))
        #expect(elapsed >= 0.29 && elapsed < 1.5, "closed after \(elapsed) s")
    }

    @Test(
        "a page that stops answering is hung up after 2 × heartbeat, never earlier, without a close frame",
        arguments: [500, 2900])
    func deadPeerHangUp(heartbeatMs: Int) throws {
        let server = try RunningServer(configure: { $0.heartbeatMs = heartbeatMs })
        defer { server.stop() }
        let ws = try TestWebSocket(port: server.port)
        ws.socket.setTimeout(Double(heartbeatMs) * 4 / 1000)
        ws.answersPings = false
        let start = Date()  // the hello is the page's last frame
        _ = try ws.hello()
        let (elapsed, closeFrame) = readUntilGone(ws, since: start)
        let expected = 2 * Double(heartbeatMs) / 1000
        #expect(elapsed >= expected - 0.002, "hung up after \(elapsed) s, before 2 × heartbeat (\(expected) s)")
        #expect(elapsed < expected + 0.5, "hung up after \(elapsed) s; expected about \(expected) s")
        #expect(closeFrame == nil)
        #expect(ws.pingsSeen >= 1)
    }

    @Test("pongs alone keep a silent page alive; the server pings and sends hb meanwhile")
    func pongsKeepAlive() throws {
        let server = try RunningServer(configure: { $0.heartbeatMs = 300 })
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        ws.socket.setTimeout(2)
        // 2.4 s = 8 heartbeats without a text frame from the page; only pongs.
        var heartbeats = 0
        let until = Date().addingTimeInterval(2.4)
        while Date() < until {
            if case .text(let text) = try ws.nextEvent(), try JSONParser.parse(text)["t"] == "hb" { heartbeats += 1 }
        }
        #expect(ws.pingsSeen >= 6)
        #expect(heartbeats >= 6)
        try ws.send(callMessage(1, "echo.syn", "still here"))
        var answer = try ws.nextMessage()
        while answer["t"] == "hb" { answer = try ws.nextMessage() }
        #expect(answer["id"] == 1)
        #expect(answer["data"] == "still here")
    }

    @Test("text frames keep a page that ignores pings alive")
    func textFramesKeepAlive() throws {
        let server = try RunningServer(configure: { $0.heartbeatMs = 300 })
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        ws.answersPings = false
        for id in 1...12 {  // 12 × 200 ms = 8 heartbeats
            Thread.sleep(forTimeInterval: 0.2)
            try ws.send(callMessage(Int64(id), "echo.syn", .string("m\(id)")))
            var answer = try ws.nextMessage()
            while answer["t"] == "hb" { answer = try ws.nextMessage() }
            #expect(answer["id"] == .integer(Int64(id)))
        }
    }
}

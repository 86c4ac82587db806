// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Testing

@Suite("Sessions outlive their sockets")
struct ResumeTests {
    @Test("resuming with token and ack replays exactly the unacknowledged messages, in order")
    func replay() throws {
        let server = try RunningServer()
        defer { server.stop() }
        var (ws, welcome) = try server.openSession()
        let token = try #require(welcome["token"]?.stringValue)
        for i in 1...4 { try ws.send(callMessage(Int64(i), "testSyn", .string("m\(i)"))) }
        for _ in 1...4 { _ = try ws.nextMessage() }
        try ws.send(["t": "ack", "seq": 2])
        try ws.send(callMessage(5, "testSyn", "m5"))
        _ = try ws.nextMessage()
        ws = try TestWebSocket(port: server.port)  // the old socket is dropped
        let resumed = try ws.hello(token: token, ack: 2)
        #expect(resumed["resumed"] == true)
        #expect(resumed["lastCall"] == 5)
        #expect(resumed["session"] == welcome["session"])
        let replayed = try (1...3).map { _ in try ws.nextMessage() }
        #expect(replayed.map { $0["seq"] } == [3, 4, 5])
        #expect(replayed.map { $0["data"] } == ["m3[ syn call]", "m4[ syn call]", "m5[ syn call]"])
        // A resent call the server already saw is dropped; a new one runs.
        try ws.send(callMessage(5, "testSyn", "again"))
        try ws.send(callMessage(6, "testSyn", "m6"))
        #expect(try ws.nextMessage() == ["t": "ret", "seq": 6, "id": 6, "code": 0, "data": "m6[ syn call]"])
    }

    @Test("a newer socket replaces the older one, which is closed 4009")
    func replaced() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let (first, welcome) = try server.openSession()
        let second = try TestWebSocket(port: server.port)
        #expect(try second.hello(token: welcome["token"]?.stringValue)["resumed"] == true)
        #expect(try first.closeCode() == 4009)
        try second.send(callMessage(1, "testSyn", "still here"))
        #expect(try second.nextMessage()["data"] == "still here[ syn call]")
    }

    @Test("a session expires graceMs after its socket closed; its token then gets 4004")
    func expiry() throws {
        let server = try RunningServer { $0.graceMs = 200 }
        defer { server.stop() }
        var (ws, welcome) = try server.openSession()
        let token = try #require(welcome["token"]?.stringValue)
        ws = try TestWebSocket(port: server.port)
        let deadline = Date().addingTimeInterval(5)
        while server.bridge.session(token: token) != nil && Date() < deadline { usleep(20_000) }
        #expect(server.bridge.session(token: token) == nil)
        try ws.send(["t": "hello", "v": 1, "token": .string(token)])
        #expect(try ws.closeCode() == 4004)
    }
}

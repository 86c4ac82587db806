import DSBridgeRedis
import Foundation
// SPDX-License-Identifier: MIT
import RedisTestServer
import Synchronization
import Testing

@Suite("RedisSubscriber against a real redis-server")
struct RedisSubscriberTests {
    /// Messages received, in order.
    final class Inbox: Sendable {
        private let messages = Mutex<[(channel: [UInt8], payload: [UInt8])]>([])

        func add(_ channel: [UInt8], _ payload: [UInt8]) { messages.withLock { $0.append((channel, payload)) } }
        func payloads(on channel: [UInt8]) -> [[UInt8]] { messages.withLock { $0.filter { $0.channel == channel }.map(\.payload) } }
    }

    @Test("messages on its channels arrive with binary payloads, a channel added later too, again after a Redis restart; stop() is quick")
    func receivesAndResubscribes() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let endpoint = try RedisEndpoint(parsing: server.url())
        let binaryChannel: [UInt8] = [0x63, 0, 0xFF]
        let inbox = Inbox()
        let subscriber = RedisSubscriber(endpoint: endpoint, channels: [Array("events".utf8), binaryChannel], logger: testLogger) {
            inbox.add($0, $1)
        }
        let connected = Counter()
        subscriber.onConnected = { connected.bump() }
        subscriber.start()
        defer { subscriber.stop() }
        #expect(await eventually { subscriber.isConnected }, "the subscriber did not subscribe within 5 s")
        let publisher = try await connectedClient(server.url())
        defer { publisher.stop() }

        let payload: [UInt8] = [0, 1, 0, 0xFE, 0]
        #expect(
            try await publisher.send([RedisCommand("PUBLISH", "events", payload), RedisCommand("PUBLISH", binaryChannel, "b")]) == [.integer(1), .integer(1)])
        #expect(await eventually { inbox.payloads(on: Array("events".utf8)) == [payload] && inbox.payloads(on: binaryChannel) == [Array("b".utf8)] })

        subscriber.subscribe("late")
        // Confirmed when PUBLISH counts one receiver.
        #expect(
            await eventually {
                let outcome = Outcome<Result<[RedisValue], RedisClientError>>()
                publisher.send([RedisCommand("PUBSUB", "NUMSUB", "late")]) { outcome.set($0) }
                return (try? outcome.wait()?.get()) == [.array([bytes("late"), .integer(1)])]
            })
        _ = try await publisher.send([RedisCommand("PUBLISH", "late", "l1")])
        #expect(await eventually { inbox.payloads(on: Array("late".utf8)) == [Array("l1".utf8)] })

        server.stop()
        #expect(await eventually { !subscriber.isConnected }, "the subscriber did not notice that Redis stopped")
        try server.restart()
        #expect(await eventually(within: 10) { subscriber.isConnected }, "the subscriber did not resubscribe within 10 s")
        #expect(connected.value == 2)
        #expect(await eventually(within: 10) { publisher.isConnected })
        #expect(
            try await publisher.send([
                RedisCommand("PUBLISH", "events", "again"), RedisCommand("PUBLISH", binaryChannel, "again"), RedisCommand("PUBLISH", "late", "again"),
            ]) == [.integer(1), .integer(1), .integer(1)])
        #expect(await eventually { inbox.payloads(on: Array("late".utf8)).count == 2 && inbox.payloads(on: binaryChannel).count == 2 })
        #expect(inbox.payloads(on: Array("events".utf8)) == [payload, Array("again".utf8)])
        #expect(subscriber.messagesReceived == 6)

        let started = ContinuousClock.now
        subscriber.stop()
        let took = ContinuousClock.now - started
        #expect(took < .seconds(1), "stop() took \(took)")
        #expect(!subscriber.isConnected)
    }

    @Test("stop() returns within a second while the subscriber is waiting to reconnect")
    func stopWhileReconnecting() async throws {
        let port = try RedisServerProcess.freePort()
        let subscriber = RedisSubscriber(endpoint: try RedisEndpoint(parsing: "redis://127.0.0.1:\(port)"), channels: [Array("x".utf8)], logger: testLogger) {
            _, _ in
        }
        subscriber.start()
        try await Task.sleep(for: .milliseconds(400))
        let started = ContinuousClock.now
        subscriber.stop()
        let took = ContinuousClock.now - started
        #expect(took < .seconds(1), "stop() took \(took)")
        #expect(!subscriber.isConnected)
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis
import Foundation
import Logging
import RedisTestServer
import Synchronization
import Testing

@testable import DSBridgeCluster

/// Node messages published while the messenger's connection is busy go out together, in
/// order; a single one goes out as it always did (docs/CLUSTER.md, "Node messages").
@Suite("Node messages coalesced per node", .serialized)
struct NodeMessagePublisherTests {
    /// Payloads a subscriber received, and the results publishers reported.
    final class Inbox: Sendable {
        private let payloads = Mutex<[[UInt8]]>([])
        private let results = Mutex<[Bool]>([])
        func add(_ payload: [UInt8]) { payloads.withLock { $0.append(payload) } }
        func report(_ delivered: Bool) { results.withLock { $0.append(delivered) } }
        var received: [[UInt8]] { payloads.withLock { $0 } }
        var reported: [Bool] { results.withLock { $0 } }
        /// Node messages received, batches counted by their elements. (A message reported
        /// delivered was taken by Redis; the subscriber may read it a moment later.)
        var messageCount: Int { received.reduce(0) { $0 + (NodeMessage.messages(in: $1)?.count ?? 0) } }
    }

    private static func waitFor(_ condition: () -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while !condition(), Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        return condition()
    }

    @Test("one message is its own payload; several are a JSON array; both decode, an unreadable element alone is skipped")
    func batchPayloads() throws {
        let first = NodeMessage.moved(session: "s1")
        let second = NodeMessage.answer(ref: 7, event: .completed(["x": 1]))
        var batch = NodeMessageBatch()
        batch.append(first.encoded())
        #expect(batch.payload == first.encoded(), "a lone message is sent as nodes always sent it")
        #expect(NodeMessage.messages(in: batch.payload) == [first])
        batch.append(second.encoded())
        batch.append(Array(#"{"t":"nope"}"#.utf8))
        batch.append(first.encoded())
        #expect(batch.count == 4)
        let text = try #require(String(validating: batch.payload, as: UTF8.self))
        #expect(text.hasPrefix("[{") && text.hasSuffix("}]"))
        #expect(NodeMessage.messages(in: batch.payload) == [first, second, nil, first])
        #expect(NodeMessage.messages(in: Array("[1,".utf8)) == nil, "not JSON: nothing")
    }

    /// A Redis server, a messenger and a subscriber of node b's channel, for `body`.
    private func withRedis(_ body: (_ messenger: RedisClient, _ inbox: Inbox) async throws -> Void) async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let endpoint = try RedisEndpoint(parsing: server.url())
        let inbox = Inbox()
        let channel = Array(ClusterKeys.channel("b").utf8)
        let subscriber = RedisSubscriber(endpoint: endpoint, channels: [channel], logger: Logger(label: "test")) { inbox.add($1) }
        subscriber.start()
        defer { subscriber.stop() }
        let messenger = RedisClient(endpoint: endpoint, logger: Logger(label: "test"))
        messenger.start()
        defer { messenger.stop() }
        #expect(try await Self.waitFor { subscriber.isConnected && messenger.isConnected })
        try await body(messenger, inbox)
    }

    @Test("messages for a node published while the connection is busy arrive in one PUBLISH, in order, each told it was delivered")
    func coalescesWhileBusy() async throws {
        try await withRedis { messenger, inbox in try await coalescesWhileBusy(messenger, inbox) }
    }

    private func coalescesWhileBusy(_ messenger: RedisClient, _ inbox: Inbox) async throws {
        let publisher = NodeMessagePublisher(messenger: messenger, batchReaders: ["a"])

        publisher.publish(.late(session: "alone"), to: "b") { inbox.report($0) }
        #expect(try await Self.waitFor { inbox.received.count == 1 })
        #expect(inbox.received == [NodeMessage.late(session: "alone").encoded()])

        // Node b's record does not say it reads batches (an older build): one message per
        // PUBLISH, in order.
        let messages = (1...200).map { NodeMessage.answer(ref: Int64($0), event: .completed(.integer(Int64($0)))) }
        try await publishWhileBusy(messages[..<20], publisher, messenger, inbox)
        #expect(try await Self.waitFor { inbox.reported.count == 21 && inbox.received.count == 21 })
        #expect(inbox.received.dropFirst() == messages[..<20].map { $0.encoded() }[...], "one by one, in order")

        // Now it does: batches.
        publisher.setBatchReaders(["a", "b"])
        let sent = messenger.commandsSent
        try await publishWhileBusy(messages[20...], publisher, messenger, inbox)
        #expect(try await Self.waitFor { inbox.reported.count == 201 && inbox.messageCount == 201 })
        #expect(inbox.reported.allSatisfy { $0 }, "every message was received by the node")
        let batches = inbox.received.dropFirst(21)
        let decoded = batches.flatMap { NodeMessage.messages(in: $0) ?? [] }
        #expect(decoded == messages[20...].map { Optional($0) }, "all of them, in the order published")
        #expect(batches.count <= 2, "one PUBLISH (two if the first was taken with the BLPOP): \(batches.count)")
        #expect(messenger.commandsSent - sent <= 3)
    }

    @Test("a batch for one node grows to about 256 KiB; what follows goes in the next PUBLISH of the same round trip, in order")
    func largeBatchesSplit() async throws {
        try await withRedis { messenger, inbox in try await largeBatchesSplit(messenger, inbox) }
    }

    private func largeBatchesSplit(_ messenger: RedisClient, _ inbox: Inbox) async throws {
        let publisher = NodeMessagePublisher(messenger: messenger, batchReaders: ["b"])
        let filler = String(repeating: "x", count: 10_000)
        let messages = (1...100).map { NodeMessage.answer(ref: Int64($0), event: .completed(.string(filler))) }  // ~1 MB
        try await publishWhileBusy(messages[...], publisher, messenger, inbox)
        #expect(try await Self.waitFor { inbox.reported.count == 100 && inbox.messageCount == 100 })
        let decoded = inbox.received.flatMap { NodeMessage.messages(in: $0) ?? [] }
        // Compared by their refs first (a failure names them, not a megabyte of text).
        let refs = decoded.map { m -> Int64? in if case .answer(let ref, _, _)? = m { ref } else { nil } }
        let perPublish = inbox.received.map { NodeMessage.messages(in: $0)?.count ?? -1 }
        #expect(refs == (1...100).map { Int64($0) }, "all of them, in the order published (by PUBLISH: \(perPublish))")
        #expect(decoded == messages.map { Optional($0) }, "and unchanged")
        #expect(inbox.received.count >= 4, "split near 256 KiB: \(inbox.received.map(\.count))")
        #expect(inbox.received.allSatisfy { $0.count <= NodeMessagePublisher.maxPayloadBytes + 10_100 })
    }

    /// Publishes `messages` to node b while the messenger's connection waits 300 ms for a
    /// list nobody pushes to: they wait for the next round trip.
    private func publishWhileBusy(
        _ messages: ArraySlice<NodeMessage>, _ publisher: NodeMessagePublisher, _ messenger: RedisClient, _ inbox: Inbox
    ) async throws {
        messenger.send([RedisCommand("BLPOP", "nothing", "0.3")]) { _ in }
        try await Task.sleep(for: .milliseconds(50))
        for m in messages { publisher.publish(m, to: "b") { inbox.report($0) } }
    }

    @Test("a node reads batches only if its record says so for its current incarnation")
    func readersFromRecords() {
        #expect(NodeMessageReaders.readsBatches(NodeMessageReaders.field(incarnation: "9f"), incarnation: "9f"))
        #expect(!NodeMessageReaders.readsBatches(nil, incarnation: "9f"), "an older build writes no such field")
        #expect(!NodeMessageReaders.readsBatches(NodeMessageReaders.field(incarnation: "9f"), incarnation: "a0"), "left by a former process")
    }

    @Test("while Redis is unreachable every message is reported undelivered at once, and publishing goes on after")
    func unreachable() async throws {
        let nobody = try RedisEndpoint(parsing: "redis://127.0.0.1:\(try RedisServerProcess.freePort())")
        let messenger = RedisClient(endpoint: nobody, logger: Logger(label: "test"))  // never started: unavailable
        let publisher = NodeMessagePublisher(messenger: messenger, batchReaders: ["b"])
        let inbox = Inbox()
        publisher.publish(.late(session: "s"), to: "b") { inbox.report($0) }
        publisher.publish(.late(session: "s"), to: "c") { inbox.report($0) }
        publisher.publish(.moved(session: "s"), to: "b") { inbox.report($0) }
        #expect(inbox.reported == [false, false, false])
    }
}

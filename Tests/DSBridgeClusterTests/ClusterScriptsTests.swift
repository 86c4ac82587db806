// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis
import Foundation
import Logging
import RedisTestServer
import Testing

@testable import DSBridgeCluster

/// The Lua scripts against a real redis-server: ownership checks (fencing), takeovers, the
/// late list, clean-up (docs/CLUSTER.md).
@Suite("Cluster scripts on Redis", .serialized)
struct ClusterScriptsTests {
    static func client(_ server: RedisServerProcess) async throws -> RedisClient {
        let client = RedisClient(endpoint: try RedisEndpoint(parsing: server.url()), logger: Logger(label: "test"))
        client.onConnected = { c in _ = try c.send(ClusterScripts.all.map(\.loadCommand)) }
        client.start()
        let deadline = Date().addingTimeInterval(5)
        while !client.isConnected, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        return client
    }

    static func created(_ id: String, token: String) -> JournalBatch {
        var batch = JournalBatch.forTests(session: id)
        batch.created = SessionIdentity(id: id, token: token, peerAddress: "127.0.0.1", origin: "http://o", createdAtMs: 1_000)
        return batch
    }

    func journal(_ client: RedisClient, _ batch: JournalBatch, node: String, epoch: Int) async throws -> String? {
        let args = JournalArguments.round(node: node, runner: node + "#1", ttlMs: 60_000, batches: [(batch, epoch)])
        let reply = try await client.send([ClusterScripts.journalScript.evalSHA(arguments: args)])
        return reply.first?.arrayValue?.first?.stringValue
    }

    func claim(_ client: RedisClient, token: String, node: String, ack: Int64) async throws -> ClaimReply {
        let reply = try await client.send([ClusterScripts.claimScript.evalSHA(arguments: [token, node, String(ack), "60000"])])
        return try ClaimReply(try #require(reply.first))
    }

    @Test("a takeover reads exactly what was journaled, raises the epoch and fences the old owner")
    func takeoverAndFencing() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await Self.client(server)
        defer { client.stop() }
        var first = Self.created("s1", token: "T")
        first.accepted = [1, 2]
        first.lastCall = 2
        first.tags = ["room:7"]
        #expect(try await journal(client, first, node: "a", epoch: 1) == "ok")
        var second = JournalBatch.forTests(session: "s1")
        second.messages = [
            JournalMessage(seq: 1, bytes: Array(#"{"t":"ret","seq":1,"id":1,"code":0,"data":1}"#.utf8), run: RunChange(id: 1, entry: nil)),
            JournalMessage(
                seq: 2, bytes: Array(#"{"t":"ret","seq":2,"id":2,"code":0,"data":""}"#.utf8),
                run: RunChange(id: 2, entry: .needsCompletion(stub: "dscb2"))),
        ]
        second.lastSeq = 2
        second.nativeCalls = [(1, "a|5")]
        #expect(try await journal(client, second, node: "a", epoch: 1) == "ok")
        #expect(try await claim(client, token: "T", node: "b", ack: 3) == .stale, "the page saw seq 3, the journal only 2")
        #expect(try await claim(client, token: "nope", node: "b", ack: 0) == ClaimReply.none)
        guard case .claimed(let c) = try await claim(client, token: "T", node: "b", ack: 1) else {
            Issue.record("not claimed")
            return
        }
        #expect(c.epoch == 2 && c.previousNode == "a")
        #expect(c.snapshot.lastCall == 2 && c.snapshot.lastSeq == 2 && c.snapshot.acked == 0)
        #expect(c.snapshot.messages.map(\.seq) == [1, 2])
        #expect(c.snapshot.run == [ClaimReply.RunRecord(id: 2, node: "a#1", entry: .needsCompletion(stub: "dscb2"))])
        #expect(c.snapshot.lostNodes == ["a#1"], "node a has no record: lost")
        #expect(c.snapshot.nativeCalls == [ClaimReply.NativeCallRecord(callbackId: 1, origin: "a|5")])
        #expect(c.snapshot.tags == ["room:7"] && c.snapshot.origin == "http://o" && c.snapshot.createdAtMs == 1_000)
        // The old owner is fenced; the new one writes.
        var late = JournalBatch.forTests(session: "s1")
        late.lastSeq = 3
        #expect(try await journal(client, late, node: "a", epoch: 1) == "moved")
        #expect(try await journal(client, late, node: "b", epoch: 2) == "ok")
        let members = try await client.send([RedisCommand("SMEMBERS", "dsb:nodesessions:b"), RedisCommand("SMEMBERS", "dsb:nodesessions:a")])
        #expect(members[0].arrayValue?.compactMap(\.stringValue) == ["s1"])
        #expect(members[1].arrayValue?.isEmpty == true)
    }

    @Test("a node started again under its name is another incarnation: the calls of the old one count as lost")
    func incarnations() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await Self.client(server)
        defer { client.stop() }
        var batch = Self.created("s4", token: "W")
        batch.accepted = [1]
        batch.lastCall = 1
        #expect(try await journal(client, batch, node: "a", epoch: 1) == "ok")  // runner a#1
        _ = try await client.send([RedisCommand("HSET", "dsb:node:a", "inc", "1")])
        guard case .claimed(let alive) = try await claim(client, token: "W", node: "b", ack: 0) else {
            Issue.record("not claimed")
            return
        }
        #expect(alive.snapshot.lostNodes.isEmpty, "a#1 still runs")
        _ = try await client.send([RedisCommand("HSET", "dsb:node:a", "inc", "2")])
        guard case .claimed(let restarted) = try await claim(client, token: "W", node: "c", ack: 0) else {
            Issue.record("not claimed")
            return
        }
        #expect(restarted.snapshot.lostNodes == ["a#1"], "a was started again: its former calls are lost")
    }

    @Test("one round writes several sessions; a fenced batch is skipped whole, the others are written")
    func roundOfSeveral() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await Self.client(server)
        defer { client.stop() }
        #expect(try await journal(client, Self.created("f1", token: "X"), node: "a", epoch: 1) == "ok")
        var fenced = JournalBatch.forTests(session: "f1")
        fenced.messages = [JournalMessage(seq: 1, bytes: Array("never".utf8))]
        fenced.accepted = [1]
        fenced.lastSeq = 1
        var fresh = Self.created("f2", token: "Y")
        fresh.messages = [JournalMessage(seq: 1, bytes: Array("m1".utf8), run: RunChange(id: 1, entry: .needsCompletion(stub: "s")))]
        fresh.lastSeq = 1
        var unknown = JournalBatch.forTests(session: "f3")
        unknown.lastSeq = 1
        let args = JournalArguments.round(node: "a", runner: "a#1", ttlMs: 60_000, batches: [(fenced, 7), (fresh, 1), (unknown, 1)])
        let reply = try await client.send([ClusterScripts.journalScript.evalSHA(arguments: args)])
        #expect(reply.first?.arrayValue?.compactMap(\.stringValue) == ["moved", "ok", "gone"])
        let check = try await client.send([
            RedisCommand("ZCARD", "dsb:s:{f1}:log"), RedisCommand("HGET", "dsb:s:{f2}:run", "1"),
            RedisCommand("HGET", "dsb:s:{f1}", "lastSeq"), RedisCommand("EXISTS", "dsb:s:{f3}"),
        ])
        #expect(check[0].integerValue == 0)
        #expect(check[1].stringValue == "a#1|c|s")
        #expect(check[2].stringValue == "0")
        #expect(check[3].integerValue == 0)
    }

    @Test(
        "a batch's changes to each key go out as one command: a ret and its final cb in one batch leave no entry; 4,500 calls (9,000 arguments to one HSET, over Lua's stack of 8,000: written in slices) are written whole"
    )
    func foldedAndSlicedSections() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await Self.client(server)
        defer { client.stop() }
        var first = Self.created("g1", token: "G")
        first.accepted = Array(1...4_500)
        first.lastCall = 4_500
        first.nativeCalls = [(1, "a|1"), (2, "a|2")]
        first.held = [(5, Array(",\"x\":1}".utf8))]
        #expect(try await journal(client, first, node: "a", epoch: 1) == "ok")
        var counts = try await client.send([RedisCommand("HLEN", "dsb:s:{g1}:run"), RedisCommand("HGET", "dsb:s:{g1}:run", "4500")])
        #expect(counts[0].integerValue == 4_500)
        #expect(counts[1].stringValue == "a#1|r")
        var second = JournalBatch.forTests(session: "g1")
        second.messages = (1...4_500).map { JournalMessage(seq: $0, bytes: Array("ret\($0)".utf8), run: RunChange(id: $0, entry: nil)) }
        second.messages.append(JournalMessage(seq: 4_501, bytes: Array("ret-x".utf8), run: RunChange(id: 9_000, entry: .needsCompletion(stub: "s"))))
        second.messages.append(JournalMessage(seq: 4_502, bytes: Array("cb-x".utf8), run: RunChange(id: 9_000, entry: nil)))
        second.lastSeq = 4_502
        second.nativeCalls = [(1, nil), (3, "b|9")]
        second.held = [(5, nil)]
        #expect(try await journal(client, second, node: "a", epoch: 1) == "ok")
        counts = try await client.send([
            RedisCommand("HLEN", "dsb:s:{g1}:run"), RedisCommand("ZCARD", "dsb:s:{g1}:log"),
            RedisCommand("HGETALL", "dsb:s:{g1}:nc"), RedisCommand("HLEN", "dsb:s:{g1}:held"),
            RedisCommand("ZRANGEBYSCORE", "dsb:s:{g1}:log", "4502", "4502"),
        ])
        #expect(counts[0].integerValue == 0, "every call answered; call 9000's ret and final cb in one batch leave nothing")
        #expect(counts[1].integerValue == 4_502)
        #expect(counts[2].arrayValue?.compactMap(\.stringValue) == ["2", "a|2", "3", "b|9"])
        #expect(counts[3].integerValue == 0)
        #expect(counts[4].arrayValue?.compactMap(\.stringValue) == ["cb-x"])
    }

    @Test("the reaper gives a dead node's keys an expiry and forgets the node when none is left")
    func reaper() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await Self.client(server)
        defer { client.stop() }
        var batch = Self.created("r1", token: "Z")
        batch.accepted = [1]
        #expect(try await journal(client, batch, node: "dead", epoch: 1) == "ok")
        #expect(try await client.send([RedisCommand("PTTL", "dsb:s:{r1}:run")]).first?.integerValue == -1)
        let first = try await client.send([ClusterScripts.reapScript.evalSHA(arguments: ["dead", "5000", "0", "200"])])
        #expect(first.first?.arrayValue == [.string(Array("0".utf8)), .integer(1)])
        let ttl = try await client.send([RedisCommand("PTTL", "dsb:s:{r1}:run")]).first?.integerValue ?? -1
        #expect(ttl > 0 && ttl <= 5000)
        _ = try await client.send([RedisCommand("DEL", "dsb:s:{r1}")])
        let after = try await client.send([
            ClusterScripts.reapScript.evalSHA(arguments: ["dead", "5000", "0", "200"]), RedisCommand("SISMEMBER", "dsb:nodes", "dead"),
        ])
        #expect(after[0].arrayValue?.last?.integerValue == 0)
        #expect(after[1].integerValue == 0)
    }

    @Test("the reaper goes through a dead node's many sessions a chunk per call, following the cursor")
    func reaperInChunks() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await Self.client(server)
        defer { client.stop() }
        let ids = (1...300).map { "s\($0)" }
        var setup: [RedisCommand] = [RedisCommand("SADD", arguments: ["dsb:nodes", "dead"])]
        for id in ids {
            setup.append(RedisCommand("HSET", "dsb:s:{\(id)}", "node", "dead", "tok", "t-\(id)"))
            setup.append(RedisCommand("SADD", "dsb:nodesessions:dead", id))
        }
        _ = try await client.send(setup)
        var cursor = "0"
        var calls = 0
        repeat {
            let reply = try await client.send([ClusterScripts.reapScript.evalSHA(arguments: ["dead", "5000", cursor, "50"])])
            let parts = try #require(reply.first?.arrayValue)
            cursor = try #require(parts.first?.stringValue)
            #expect(parts.last?.integerValue == 300)
            calls += 1
        } while cursor != "0" && calls < 100
        #expect(cursor == "0")
        #expect(calls > 1)
        let ttls = try await client.send(ids.map { RedisCommand("PTTL", "dsb:s:{\($0)}") })
        #expect(ttls.allSatisfy { ($0.integerValue ?? -1) > 0 })
    }

    @Test("renewal reports the sessions another node owns, not those without a record (Redis restarted empty)")
    func renewal() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await Self.client(server)
        defer { client.stop() }
        #expect(try await journal(client, Self.created("mine", token: "M"), node: "a", epoch: 1) == "ok")
        #expect(try await journal(client, Self.created("theirs", token: "T"), node: "b", epoch: 1) == "ok")
        let reply = try await client.send([ClusterScripts.renewScript.evalSHA(arguments: ["a", "5000", "mine", "theirs", "missing"])])
        #expect(reply.first?.arrayValue?.compactMap(\.stringValue) == ["theirs"])
        let ttl = try await client.send([RedisCommand("PTTL", "dsb:s:{mine}")]).first?.integerValue ?? -1
        #expect(ttl > 0 && ttl <= 5000)
    }

    @Test("acknowledgements trim the log; the end of a session deletes its keys, token and tags")
    func trimAndEnd() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await Self.client(server)
        defer { client.stop() }
        var batch = Self.created("s2", token: "U")
        batch.messages = (1...3).map { JournalMessage(seq: $0, bytes: Array("m\($0)".utf8)) }
        batch.lastSeq = 3
        batch.tags = ["x"]
        #expect(try await journal(client, batch, node: "a", epoch: 1) == "ok")
        var ack = JournalBatch.forTests(session: "s2")
        ack.lastSeq = 3
        ack.acked = 2
        #expect(try await journal(client, ack, node: "a", epoch: 1) == "ok")
        let log = try await client.send([RedisCommand("ZRANGE", "dsb:s:{s2}:log", "0", "-1")])
        #expect(log.first?.arrayValue?.compactMap(\.stringValue) == ["m3"])
        _ = try await client.send([ClusterScripts.endScript.evalSHA(arguments: ["s2", "b", "1"])])  // not the owner: nothing
        #expect(try await client.send([RedisCommand("EXISTS", "dsb:s:{s2}")]).first?.integerValue == 1)
        _ = try await client.send([ClusterScripts.endScript.evalSHA(arguments: ["s2", "a", "1"])])
        let keys = try await client.send([RedisCommand("KEYS", "dsb:*")]).first?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(keys.filter { $0.contains("s2") || $0.hasPrefix("dsb:tok:") || $0.hasPrefix("dsb:tag:") }.isEmpty, "left: \(keys)")
    }

    @Test("late items are read from an offset and trimmed by the batch that appended them")
    func lateList() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await Self.client(server)
        defer { client.stop() }
        #expect(try await journal(client, Self.created("s3", token: "V"), node: "b", epoch: 1) == "ok")
        let items = (1...3).map { i in
            LateItem.encode(LateMessage(message: SequencedMessage(kind: .ret, tail: Array(",\"id\":\(i)}".utf8)), run: nil), runner: "a")
        }
        let owner = try await client.send([ClusterScripts.pushLateScript.evalSHA(arguments: ["s3", "60000"] + items)])
        #expect(owner.first?.stringValue == "b")
        let read = try await client.send([ClusterScripts.readLateScript.evalSHA(arguments: ["s3", "b", "1", "1"])])
        #expect(read.first?.arrayValue?.count == 2, "offset 1: the first was read already")
        let notOwner = try await client.send([ClusterScripts.readLateScript.evalSHA(arguments: ["s3", "a", "1", "0"])])
        #expect(notOwner.first == RedisValue.null || notOwner.first?.arrayValue == nil)
        var consumed = JournalBatch.forTests(session: "s3")
        consumed.lateConsumed = 2
        #expect(try await journal(client, consumed, node: "b", epoch: 1) == "ok")
        let left = try await client.send([RedisCommand("LLEN", "dsb:s:{s3}:late")])
        #expect(left.first?.integerValue == 1)
        let none = try await client.send([ClusterScripts.pushLateScript.evalSHA(arguments: ["gone", "60000"] + items)])
        #expect(none.first?.stringValue == nil, "no record: the items are not kept")
    }
}

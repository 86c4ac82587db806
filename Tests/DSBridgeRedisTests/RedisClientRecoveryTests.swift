import DSBridgeRedis
import Dispatch
import Foundation
// SPDX-License-Identifier: MIT
import RedisTestServer
import Synchronization
import Testing

@Suite("RedisClient when Redis goes away or stalls")
struct RedisClientRecoveryTests {
    @Test("Redis stopped: a send fails at once with .unavailable; Redis back on the same port: the client reconnects by itself")
    func reconnectsAfterRestart() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let connected = Counter()
        let disconnected = Mutex<[RedisClientError]>([])
        let client = try await connectedClient(server.url()) { client in
            client.onConnected = { _ in connected.bump() }
            client.onDisconnected = { error in disconnected.withLock { $0.append(error) } }
        }
        defer { client.stop() }
        #expect(try await client.send([RedisCommand("SET", "k", "before")]) == [.status("OK")])
        #expect(connected.value == 1)

        server.stop()
        // The idle client notices the closed socket by itself, without a send.
        #expect(await eventually { !client.isConnected }, "the client did not notice that Redis stopped")
        #expect(disconnected.withLock { $0.count } == 1)
        let outcome = Outcome<Result<[RedisValue], RedisClientError>>()
        client.send([RedisCommand("GET", "k")]) { outcome.set($0) }
        guard case .failure(.unavailable(let why))? = outcome.current else {
            Issue.record("expected an immediate .unavailable, got \(String(describing: outcome.current))")
            return
        }
        #expect(why.contains("lost") || why.contains("not connected"), "\(why)")

        try server.restart()
        #expect(await eventually(within: 10) { client.isConnected }, "the client did not reconnect within 10 s")
        #expect(connected.value == 2)
        #expect(client.connections == 2)
        #expect(try await client.send([RedisCommand("SET", "k", "after"), RedisCommand("GET", "k")]) == [.status("OK"), bytes("after")])
    }

    @Test("a reply that does not come within the command timeout fails the batch in flight with .unavailable, and the client recovers")
    func replyTimeout() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let admin = try await connectedClient(server.url())
        defer { admin.stop() }
        let client = try await connectedClient(server.url(), commandTimeoutMs: 500)
        defer { client.stop() }
        let pauseMs = 1500
        #expect(try await admin.send([RedisCommand("CLIENT", "PAUSE", pauseMs)]) == [.status("OK")])
        // Timed on the client's thread (the completion), not in this task, which may wait
        // for a thread of the pool before it resumes.
        let started = ContinuousClock.now
        let outcome = Outcome<(Result<[RedisValue], RedisClientError>, Duration)>()
        client.send([RedisCommand("SET", "k", "paused")]) { outcome.set(($0, ContinuousClock.now - started)) }
        let (result, waited) = try #require(outcome.wait(seconds: 5), "the batch neither failed nor succeeded within 5 s")
        guard case .failure(.unavailable(let why)) = result else {
            Issue.record("expected .unavailable after the timeout, got \(result)")
            return
        }
        #expect(why.contains("timed out"), "\(why)")
        #expect(waited >= .milliseconds(450) && waited < .milliseconds(1400), "the batch failed after \(waited), not after about 500 ms")
        // Once the pause is over, work goes through again (on a new connection).
        var recovered = false
        let deadline = ContinuousClock.now + .seconds(10)
        while !recovered && ContinuousClock.now < deadline {
            if (try? await client.send([RedisCommand("PING")])) == [.status("PONG")] {
                recovered = true
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        #expect(recovered, "the client did not recover within 10 s")
        #expect(client.connections >= 2)
    }
}

extension RedisClientRecoveryTests {
    @Test("a batch written after Redis died fails with .unavailable, its outcome unknown, and the process survives the broken pipe")
    func writeToDeadServer() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await connectedClient(server.url())
        defer { client.stop() }
        // Hold the client's thread in a prepare while Redis goes away, so it writes to a dead
        // socket instead of noticing the close while idle.
        let entered = Outcome<Void>()
        let release = DispatchSemaphore(value: 0)
        let outcome = Outcome<Result<[RedisValue], RedisClientError>>()
        let big = [UInt8](repeating: 0x61, count: 8 << 20)
        client.send(
            prepare: {
                entered.set(())
                _ = release.wait(timeout: .now() + 10)
                return [RedisCommand("SET", "big", big), RedisCommand("SET", "big2", big), RedisCommand("GET", "big")]
            }, completion: { outcome.set($0) })
        #expect(entered.wait() != nil)
        server.stop()
        release.signal()
        let result = try #require(outcome.wait(seconds: 10), "the batch did not fail within 10 s")
        guard case .failure(.unavailable(let why)) = result else {
            Issue.record("expected .unavailable, got \(result)")
            return
        }
        #expect(why.contains("may or may not have run"), "\(why)")
        #expect(await eventually { !client.isConnected })
    }
}

import DSBridgeRedis
import Foundation
// SPDX-License-Identifier: MIT
import RedisTestServer
import Synchronization
import Testing

@Suite("RedisClient against a real redis-server")
struct RedisClientTests {
    @Test("a batch's replies come back in order, and an error reply is a value among the others")
    func batchInOrder() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await connectedClient(server.url())
        defer { client.stop() }
        let replies = try await client.send([
            RedisCommand("SET", "k", "v"), RedisCommand("GET", "k"), RedisCommand("INCR", "n"), RedisCommand("INCR", "n"),
            RedisCommand("INCR", "k"), RedisCommand("GET", "missing"), RedisCommand("PING"), RedisCommand("LRANGE", "none", 0, -1),
        ])
        #expect(
            replies == [
                .status("OK"), bytes("v"), .integer(1), .integer(2), .error("ERR value is not an integer or out of range"), .null,
                .status("PONG"), .array([]),
            ])
        #expect(client.roundTrips == 1)
        #expect(client.commandsSent == 8)
    }

    @Test("binary keys and values with zero bytes go through unchanged")
    func binarySafe() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await connectedClient(server.url())
        defer { client.stop() }
        let key: [UInt8] = [0, 10, 13, 0]
        let value: [UInt8] = (0..<256).map { UInt8($0) } + [0, 0]
        let empty: [UInt8] = []
        let replies = try await client.send([
            RedisCommand("SET", key, value), RedisCommand("GET", key), RedisCommand("SET", "e", empty), RedisCommand("GET", "e"),
        ])
        #expect(replies == [.status("OK"), .string(value), .status("OK"), .string([])])
    }

    @Test("group commit: 1,000 batches sent from 4 threads at once all complete right, in far fewer round trips")
    func groupCommit() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await connectedClient(server.url())
        defer { client.stop() }
        let results = Mutex<[Int: Result<[RedisValue], RedisClientError>]>([:])
        let threads = 4
        let perThread = 250
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for i in 0..<perThread {
                let id = thread * perThread + i
                client.send([RedisCommand("INCR", "total"), RedisCommand("SET", "key:\(id)", id), RedisCommand("GET", "key:\(id)")]) { result in
                    results.withLock { $0[id] = result }
                }
            }
        }
        let done = await eventually(within: 20) { results.withLock { $0.count } == threads * perThread }
        #expect(done, "\(results.withLock { $0.count }) of 1000 batches completed within 20 s")
        var totals: Set<Int64> = []
        for (id, result) in results.withLock({ $0 }) {
            let replies = try result.get()
            #expect(replies.count == 3)
            #expect(replies.dropFirst() == [.status("OK"), bytes("\(id)")])
            if let total = replies.first?.integerValue { totals.insert(total) }
        }
        #expect(totals == Set(1...1000))
        print("group commit: 1000 batches (3000 commands) from \(threads) threads in \(client.roundTrips) round trips")
        #expect(client.roundTrips < 250, "\(client.roundTrips) round trips for 1000 batches: batches were not coalesced")
        #expect(client.commandsSent == 3000)
    }

    @Test("send(prepare:) builds the commands on the client's thread when it is about to write them")
    func prepareAtWriteTime() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await connectedClient(server.url())
        defer { client.stop() }
        let firstEntered = Outcome<Void>()
        let releaseFirst = DispatchSemaphore(value: 0)
        let decided = Mutex("not yet")
        let threadName = Outcome<String>()
        let first = Outcome<Result<[RedisValue], RedisClientError>>()
        let second = Outcome<Result<[RedisValue], RedisClientError>>()
        let third = Outcome<Result<[RedisValue], RedisClientError>>()
        // The first batch holds the client's thread in its prepare until released.
        client.send(
            prepare: {
                firstEntered.set(())
                _ = releaseFirst.wait(timeout: .now() + 10)
                return [RedisCommand("SET", "first", "1")]
            }, completion: { first.set($0) })
        #expect(firstEntered.wait() != nil)
        client.send(
            prepare: {
                threadName.set((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines) ?? "?")
                return [RedisCommand("SET", "decided", decided.withLock { $0 }), RedisCommand("GET", "decided")]
            }, completion: { second.set($0) })
        client.send(prepare: { nil }, completion: { third.set($0) })
        decided.withLock { $0 = "after send returned" }
        releaseFirst.signal()
        #expect(try first.wait()?.get() == [.status("OK")])
        #expect(try second.wait()?.get() == [.status("OK"), bytes("after send returned")])
        #expect(try third.wait()?.get() == [])
        #expect(threadName.current == "dsbridge-redis")
    }

    @Test("while its thread sleeps, a small batch is written by its sender; while a batch is in flight, or for a large one, it is not; order holds")
    func writtenBySender() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await connectedClient(server.url())
        defer { client.stop() }
        try await Task.sleep(for: .milliseconds(50))  // the thread is asleep
        let first = Outcome<Result<[RedisValue], RedisClientError>>()
        #expect(client.sendIfIdle([RedisCommand("RPUSH", "order", "1")]) { first.set($0) })
        #expect(try first.wait()?.get() == [.integer(1)])

        // A batch in flight (the connection waits 300 ms for a list nobody pushes to): not
        // written now; what is sent meanwhile follows it, in order.
        let blocked = Outcome<Result<[RedisValue], RedisClientError>>()
        client.send([RedisCommand("BLPOP", "nothing", "0.3")]) { blocked.set($0) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(!client.sendIfIdle([RedisCommand("RPUSH", "order", "x")]) { _ in Issue.record("a refused batch completed") })
        let done = Counter()
        for i in 2...20 { client.send([RedisCommand("RPUSH", "order", i)]) { if case .success = $0 { done.bump() } } }
        #expect(await eventually { done.value == 19 })
        #expect(blocked.current.map { (try? $0.get()) == [.null] } == true, "the BLPOP came back first, with nothing")
        #expect(try await client.send([RedisCommand("LRANGE", "order", 0, -1)]) == [.array((1...20).map { bytes("\($0)") })])

        // Too large for the sender's write, even with the thread asleep.
        try await Task.sleep(for: .milliseconds(50))
        let big = [UInt8](repeating: 0x61, count: 20_000)
        #expect(!client.sendIfIdle([RedisCommand("SET", "big", big)]) { _ in Issue.record("a refused batch completed") })
        #expect(client.sendIfIdle([RedisCommand("SET", "small", "s")]) { _ in })
    }

    @Test("while its thread sleeps, a prepared batch is built and written by its sender; busy, it is refused unbuilt; order holds")
    func preparedBySender() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = try await connectedClient(server.url())
        defer { client.stop() }
        let threadName: @Sendable () -> String = {
            (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines) ?? "?"
        }
        try await Task.sleep(for: .milliseconds(50))  // the thread is asleep
        let builtOn = Outcome<String>()
        let first = Outcome<Result<[RedisValue], RedisClientError>>()
        let inner = Outcome<Result<[RedisValue], RedisClientError>>()
        let taken = client.sendIfIdle(
            prepare: {
                builtOn.set(threadName())
                // A batch sent while the connection is lent waits, and follows this one.
                client.send([RedisCommand("RPUSH", "order", "2")]) { inner.set($0) }
                return [RedisCommand("RPUSH", "order", "1")]
            }, completion: { first.set($0) })
        #expect(taken)
        #expect(builtOn.current != nil && builtOn.current != "dsbridge-redis", "built on the sender's thread: \(builtOn.current ?? "-")")
        #expect(try first.wait()?.get() == [.integer(1)])
        #expect(try inner.wait()?.get() == [.integer(2)])

        // Nothing to write: completed at once with no replies; the connection is idle again,
        // so the next small batch is its sender's to write as well.
        try await Task.sleep(for: .milliseconds(50))
        let empty = Outcome<Result<[RedisValue], RedisClientError>>()
        let emptyTaken = client.sendIfIdle(prepare: { nil }, completion: { empty.set($0) })
        #expect(emptyTaken)
        #expect(try empty.current?.get() == [], "completed before sendIfIdle returned")
        let after = Outcome<Result<[RedisValue], RedisClientError>>()
        #expect(client.sendIfIdle([RedisCommand("RPUSH", "order", "3")]) { after.set($0) })
        #expect(try after.wait()?.get() == [.integer(3)])

        // A batch in flight: refused, and prepare is never called.
        let blocked = Outcome<Result<[RedisValue], RedisClientError>>()
        client.send([RedisCommand("BLPOP", "nothing", "0.3")]) { blocked.set($0) }
        try await Task.sleep(for: .milliseconds(50))
        let busyTaken = client.sendIfIdle(
            prepare: {
                Issue.record("a refused batch was built")
                return nil
            }, completion: { _ in Issue.record("a refused batch completed") })
        #expect(!busyTaken)
        #expect(blocked.wait() != nil)

        // Built too large for its sender to write: the thread writes it, ahead of a batch
        // queued while it was built.
        try await Task.sleep(for: .milliseconds(50))
        let big = [UInt8](repeating: 0x62, count: 20_000)
        let large = Outcome<Result<[RedisValue], RedisClientError>>()
        let behind = Outcome<Result<[RedisValue], RedisClientError>>()
        let largeTaken = client.sendIfIdle(
            prepare: {
                client.send([RedisCommand("RPUSH", "order", "5")]) { behind.set($0) }
                return [RedisCommand("SET", "big", big), RedisCommand("RPUSH", "order", "4")]
            }, completion: { large.set($0) })
        #expect(largeTaken)
        #expect(try large.wait()?.get() == [.status("OK"), .integer(4)])
        #expect(try behind.wait()?.get() == [.integer(5)])
        #expect(try await client.send([RedisCommand("LRANGE", "order", 0, -1)]) == [.array((1...5).map { bytes("\($0)") })])
    }

    @Test("before start, after stop, with a bad command or a full queue, a send fails at once with the reason")
    func failsAtOnce() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let idle = RedisClient(endpoint: try RedisEndpoint(parsing: server.url()), logger: testLogger)
        let beforeStart = Outcome<Result<[RedisValue], RedisClientError>>()
        idle.send([RedisCommand("PING")]) { beforeStart.set($0) }
        guard case .failure(.unavailable(let why))? = beforeStart.current else {
            Issue.record("expected unavailable before start, got \(String(describing: beforeStart.current))")
            return
        }
        #expect(why.contains("start()"))

        let client = try await connectedClient(server.url(), maxQueuedBatches: 1)
        await #expect(throws: RedisClientError.self) { try await client.send([RedisCommand(arguments: [])]) }
        await #expect(throws: RedisClientError.self) { try await client.send([RedisCommand("SUBSCRIBE", "x")]) }
        #expect(try await client.send([]) == [])

        // Hold the thread in a prepare: one batch fits in the queue, the next does not.
        let entered = Outcome<Void>()
        let release = DispatchSemaphore(value: 0)
        client.send(
            prepare: {
                entered.set(())
                _ = release.wait(timeout: .now() + 10)
                return nil
            }, completion: { _ in })
        #expect(entered.wait() != nil)
        let queued = Outcome<Result<[RedisValue], RedisClientError>>()
        let overflow = Outcome<Result<[RedisValue], RedisClientError>>()
        client.send([RedisCommand("PING")]) { queued.set($0) }
        client.send([RedisCommand("PING")]) { overflow.set($0) }
        #expect(overflow.current == .failure(.overloaded(limit: 1)))

        // Stop while that batch is queued: the round in flight ends, the queued batch fails.
        let stopped = Outcome<Void>()
        Thread.detachNewThread {
            client.stop()
            stopped.set(())
        }
        let closedNow = await eventually {
            let after = Outcome<Result<[RedisValue], RedisClientError>>()
            client.send([RedisCommand("PING")]) { after.set($0) }
            if case .failure(.closed)? = after.current { return true }
            return false
        }
        #expect(closedNow)
        release.signal()
        #expect(stopped.wait() != nil, "stop() did not return")
        guard case .failure(.closed)? = queued.wait() else {
            Issue.record("the queued batch should fail with .closed, got \(String(describing: queued.current))")
            return
        }
    }

    @Test("a unix:// endpoint with ?db=N selects that database on connecting")
    func unixSocketAndDatabase() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let viaSocket = try await connectedClient("unix://\(server.socketPath)?db=3")
        defer { viaSocket.stop() }
        _ = try await viaSocket.send([RedisCommand("SET", "where", "db3")])
        let db3 = try await connectedClient(server.url(database: 3))
        defer { db3.stop() }
        let db0 = try await connectedClient(server.url())
        defer { db0.stop() }
        #expect(try await db3.send([RedisCommand("GET", "where")]) == [bytes("db3")])
        #expect(try await db0.send([RedisCommand("GET", "where")]) == [.null])
    }

    @Test("a database the server does not have fails the connection with a message naming it; stop() during the retries is quick")
    func missingDatabase() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let client = RedisClient(endpoint: try RedisEndpoint(parsing: server.url(database: 99)), logger: testLogger)
        client.start()
        let said = await eventually {
            let outcome = Outcome<Result<[RedisValue], RedisClientError>>()
            client.send([RedisCommand("PING")]) { outcome.set($0) }
            if case .failure(.unavailable(let why))? = outcome.current { return why.contains("SELECT 99 failed") }
            return false
        }
        #expect(said)
        #expect(!client.isConnected)
        // Stopping while it waits to retry does not wait for the retry.
        let started = ContinuousClock.now
        client.stop()
        #expect(ContinuousClock.now - started < .milliseconds(500))
    }

    @Test("onConnected runs before any batch with a working connection, and a throwing one makes the client retry")
    func onConnectedSetup() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        struct NotYet: Error {}
        let calls = Counter()
        let client = try await connectedClient(server.url()) { client in
            client.onConnected = { connection in
                calls.bump()
                _ = try connection.send([RedisCommand("INCR", "setups")])
                if calls.value == 1 { throw NotYet() }
            }
        }
        defer { client.stop() }
        #expect(calls.value == 2)
        #expect(client.connections == 1)
        #expect(try await client.send([RedisCommand("GET", "setups")]) == [bytes("2")])
    }
}

import DSBridgeRedis
// SPDX-License-Identifier: MIT
import RedisTestServer
import Testing

@Suite("Lua scripts by SHA-1")
struct RedisScriptTests {
    @Test("a script loaded in onConnected runs with EVALSHA; after SCRIPT FLUSH, NOSCRIPT is detected and EVAL runs it")
    func evalSHA() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])")
        let loaded = Outcome<RedisValue>()
        let client = try await connectedClient(server.url()) { client in
            client.onConnected = { connection in
                if let answer = try connection.send([script.loadCommand]).first { loaded.set(answer) }
            }
        }
        defer { client.stop() }
        #expect(loaded.current == bytes(script.sha1), "SCRIPT LOAD answered a different SHA-1 than the one computed here")
        #expect(try await client.send([script.evalSHA(keys: ["n"], arguments: [5])]) == [.integer(5)])

        #expect(try await client.send([RedisCommand("SCRIPT", "FLUSH")]) == [.status("OK")])
        let missing = try await client.send([script.evalSHA(keys: ["n"], arguments: [1])])
        #expect(missing.count == 1)
        #expect(RedisScript.isNoScript(missing[0]), "\(missing)")
        #expect(try await client.send([script.eval(keys: ["n"], arguments: [2])]) == [.integer(7)])
        #expect(try await client.send([script.evalSHA(keys: ["n"], arguments: [3])]) == [.integer(10)])
    }
}

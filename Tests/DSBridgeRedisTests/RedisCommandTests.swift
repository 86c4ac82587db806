// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridgeRedis

@Suite("Commands, replies and backoff, without a server")
struct RedisCommandTests {
    @Test("a command is built from strings, bytes and integers, each a binary-safe argument")
    func mixedArguments() {
        let command = RedisCommand("SET", "k", [0, 1, 0, 255] as [UInt8], "EX", 30)
        #expect(command.arguments == [Array("SET".utf8), Array("k".utf8), [0, 1, 0, 255], Array("EX".utf8), Array("30".utf8)])
        #expect(RedisCommand("PING").arguments == [Array("PING".utf8)])
        #expect(RedisCommand("del", arguments: ["a", -1, Int64(7)]).arguments == [Array("del".utf8), Array("a".utf8), Array("-1".utf8), Array("7".utf8)])
        #expect(command.name == "SET")
        #expect(command.description == "SET (4 arguments)")
    }

    @Test("an empty command, or one that changes the reply model, cannot be sent on a client")
    func unsendable() {
        #expect(RedisCommand(arguments: []).problem != nil)
        #expect(RedisCommand(arguments: [[]]).problem != nil)
        #expect(RedisCommand("subscribe", "ch").problem?.contains("RedisSubscriber") == true)
        #expect(RedisCommand("MONITOR").problem != nil)
        #expect(RedisCommand("GET", "k").problem == nil)
    }

    @Test("reply helpers read their own kind and answer nil for the others")
    func valueHelpers() {
        #expect(RedisValue.string(Array("hé".utf8)).stringValue == "hé")
        #expect(RedisValue.string([0xFF, 0xFE]).stringValue == nil)
        #expect(RedisValue.string([0xFF]).bytesValue == [0xFF])
        #expect(RedisValue.status("OK").stringValue == "OK")
        #expect(RedisValue.integer(-3).integerValue == -3)
        #expect(RedisValue.string(Array("3".utf8)).integerValue == nil)
        #expect(RedisValue.array([.null]).arrayValue == [.null])
        #expect(RedisValue.null.arrayValue == nil)
        #expect(RedisValue.error("ERR x").errorMessage == "ERR x")
        #expect(RedisValue.error("ERR x").stringValue == nil)
        #expect(RedisValue.array([.integer(1), .string(Array("a".utf8)), .null]).description == "[(integer) 1, \"a\", (nil)]")
    }

    @Test("errors say what happened and what to do")
    func errorMessages() {
        #expect(RedisClientError.closed.description.contains("stopped"))
        #expect(RedisClientError.overloaded(limit: 5).description.contains("5 batches already queued"))
        #expect(RedisClientError.unavailable("x").description == "redis unavailable: x")
    }

    @Test("backoff delays double from 100 ms to 5 s, each in the upper half of its bound, and restart after a success")
    func backoff() {
        var backoff = RedisBackoff()
        var bounds: [Int] = []
        for _ in 0..<10 {
            let bound = backoff.currentMs
            bounds.append(bound)
            let delay = backoff.nextDelayMs()
            #expect(delay >= bound / 2 && delay <= bound)
        }
        #expect(bounds == [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000])
        backoff.reset()
        #expect(backoff.currentMs == 100)
    }

    @Test("a script's SHA-1 is computed locally and EVALSHA / EVAL carry numkeys, keys, then arguments")
    func scriptCommands() {
        let script = RedisScript("return 1")
        #expect(script.sha1 == "e0e1f9fabfc9d4800c877a703b823ac0578ff8db")
        #expect(
            script.evalSHA(keys: ["k"], arguments: [5, "x"]).arguments.map { String(decoding: $0, as: UTF8.self) } == [
                "EVALSHA", script.sha1, "1", "k", "5", "x",
            ])
        #expect(script.eval().arguments.map { String(decoding: $0, as: UTF8.self) } == ["EVAL", "return 1", "0"])
        #expect(RedisScript.isNoScript(.error("NOSCRIPT No matching script. Please use EVAL.")))
        #expect(!RedisScript.isNoScript(.error("ERR other")))
    }

    @Test("what a batch's prepare built sorts into nothing, a command that cannot be sent, or commands to write")
    func preparedCommands() {
        guard case .nothing = PreparedCommands(nil) else { Issue.record("nil is nothing to send"); return }
        guard case .nothing = PreparedCommands([]) else { Issue.record("no commands is nothing to send"); return }
        guard case .invalid(let problem) = PreparedCommands([RedisCommand("SET", "k", "v"), RedisCommand("SUBSCRIBE", "c")]) else {
            Issue.record("one unsendable command fails the batch")
            return
        }
        #expect(problem.contains("SUBSCRIBE"))
        guard case .ready(let commands) = PreparedCommands([RedisCommand("SET", "k", "v"), RedisCommand("GET", "k")]) else {
            Issue.record("sendable commands are written")
            return
        }
        #expect(commands.map(\.name) == ["SET", "GET"])
    }
}

// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridgeRedis

@Suite("RESP encoding of commands")
struct RESPEncodingTests {
    private func encoded(_ commands: [RedisCommand]) -> String {
        var out: [UInt8] = []
        for c in commands { RESPEncoding.append(c, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    @Test("a command is its argument count, then each argument with its length")
    func plainCommand() {
        #expect(encoded([RedisCommand("SET", "k", "value")]) == "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nvalue\r\n")
    }

    @Test("empty and binary arguments keep their exact bytes; lengths of several digits")
    func emptyBinaryAndLongArguments() {
        var out: [UInt8] = []
        let binary: [UInt8] = [0, 13, 10, 255]
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 12_345)
        RESPEncoding.append(RedisCommand(arguments: [Array("PUBLISH".utf8), [], binary, long]), to: &out)
        let head = Array("*4\r\n$7\r\nPUBLISH\r\n$0\r\n\r\n$4\r\n".utf8)
        #expect(Array(out.prefix(head.count)) == head)
        let afterBinary = head.count + binary.count
        #expect(Array(out[head.count..<afterBinary]) == binary)
        let longHead = Array("\r\n$12345\r\n".utf8)
        #expect(Array(out[afterBinary..<(afterBinary + longHead.count)]) == longHead)
        #expect(out.count == afterBinary + longHead.count + long.count + 2)
        #expect(out.suffix(2) == [13, 10])
    }

    @Test("several commands follow each other in one buffer, in order")
    func severalCommands() {
        #expect(encoded([RedisCommand("PING"), RedisCommand("GET", "a")]) == "*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\na\r\n")
    }

    @Test("a command written argument by argument is the same bytes as the list of its arguments encoded")
    func writerMatchesList() {
        let numbers: [Int64] = [0, 7, 10, -1, -45, 1_234_567_890, Int64.max, Int64.min]
        var writer = RESPCommandWriter(name: "EVALSHA", capacity: 8)
        var list: [[UInt8]] = [Array("EVALSHA".utf8)]
        for n in numbers {
            writer.appendArgument(decimal: n)
            list.appendArgument(decimal: n)
        }
        for text in ["", "k", "é ∑ 日本"] {
            writer.appendArgument(text)
            list.appendArgument(text)
        }
        for bytes: [UInt8] in [[], [0, 13, 10, 255], [UInt8](repeating: 120, count: 1_000)] {
            writer.appendArgument(bytes)
            list.appendArgument(bytes)
        }
        #expect(list[1...8].map { String(decoding: $0, as: UTF8.self) } == numbers.map(String.init))
        let command = writer.command()
        #expect(writer.count == list.count)
        #expect(command.name == "EVALSHA")
        #expect(command.description == "EVALSHA (\(list.count - 1) arguments)")
        var fromWriter: [UInt8] = []
        RESPEncoding.append(command, to: &fromWriter)
        var fromList: [UInt8] = []
        RESPEncoding.append(RedisCommand(arguments: list), to: &fromList)
        #expect(fromWriter == fromList)
        #expect(RESPEncoding.estimatedSize(of: [command]) == fromWriter.count)
    }
}

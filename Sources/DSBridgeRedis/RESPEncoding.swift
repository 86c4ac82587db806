// SPDX-License-Identifier: MIT

/// Commands in the form Redis reads them (RESP: `*COUNT\r\n`, then `$LENGTH\r\nBYTES\r\n` per
/// argument), written into one buffer.
///
/// What `redisAppendCommandArgv` produces, without its per-argument `sdscatfmt` calls and
/// the pointer and length arrays it needs: a journal round of many sessions is one copy.
enum RESPEncoding {
    /// Appends `command` to `out`.
    static func append(_ command: RedisCommand, to out: inout [UInt8]) {
        if let encoded = command.encoded {
            out.append(contentsOf: encoded)
            return
        }
        out.append(UInt8(ascii: "*"))
        appendDecimal(command.arguments.count, to: &out)
        for argument in command.arguments {
            out.append(UInt8(ascii: "$"))
            appendDecimal(argument.count, to: &out)
            out.append(contentsOf: argument)
            out.append(UInt8(ascii: "\r"))
            out.append(UInt8(ascii: "\n"))
        }
    }

    /// The bytes `commands` take, about (a capacity to reserve).
    static func estimatedSize(of commands: some Collection<RedisCommand>) -> Int {
        commands.reduce(0) { sum, command in
            command.encoded.map { sum + $0.count } ?? command.arguments.reduce(sum + 16) { $0 + $1.count + 16 }
        }
    }

    /// `n` in decimal, then `\r\n`.
    static func appendDecimal(_ n: Int, to out: inout [UInt8]) {
        let first = out.count
        var value = UInt(max(0, n))
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(value % 10))
            value /= 10
        } while value > 0
        out[first...].reverse()
        out.append(UInt8(ascii: "\r"))
        out.append(UInt8(ascii: "\n"))
    }
}

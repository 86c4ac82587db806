// SPDX-License-Identifier: MIT

/// A command written argument by argument straight into RESP, for commands of many
/// arguments built in a loop (a journal round): each argument is copied once, into one
/// buffer, with no array or string per argument.
///
/// ```swift
/// var w = RESPCommandWriter(name: "EVALSHA")
/// w.appendArgument(sha); w.appendArgument(decimal: 0)
/// client.send([w.command()])
/// ```
public struct RESPCommandWriter: RedisArgumentSink {
    private let name: String
    /// The arguments in RESP, the name first.
    private var body: [UInt8] = []
    /// The arguments written, the name included.
    public private(set) var count = 0

    /// Starts command `name`; `capacity`: the bytes to reserve for its arguments.
    public init(name: String, capacity: Int = 256) {
        self.name = name
        body.reserveCapacity(capacity)
        appendArgument(name)
    }

    public mutating func appendArgument(_ bytes: [UInt8]) {
        appendHead(bytes.count)
        body.append(contentsOf: bytes)
        body.append(13)
        body.append(10)
    }

    public mutating func appendArgument(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            appendHead(utf8.count)
            body.append(contentsOf: utf8)
        }
        body.append(13)
        body.append(10)
    }

    public mutating func appendArgument(decimal n: Int64) {
        count += 1
        // Formatted backwards into a scratch buffer, head and all, then copied once (this
        // runs for most arguments of a journal round).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
            var start = Self.writeDecimalLine(n.magnitude, endingAt: buffer.count, in: buffer)
            if n < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            start = Self.writeDecimalLine(UInt64(buffer.count - 2 - start), endingAt: start, in: buffer)
            start -= 1
            buffer[start] = UInt8(ascii: "$")
            body.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// The command: its RESP bytes, ready to be queued as they are.
    public func command() -> RedisCommand {
        var head: [UInt8] = [UInt8(ascii: "*")]
        RESPEncoding.appendDecimal(count, to: &head)
        return RedisCommand(name: name, argumentCount: count, encoded: head + body)
    }

    /// `$LENGTH\r\n`, counting the argument.
    private mutating func appendHead(_ length: Int) {
        count += 1
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            var start = Self.writeDecimalLine(UInt64(length), endingAt: buffer.count, in: buffer)
            start -= 1
            buffer[start] = UInt8(ascii: "$")
            body.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Writes `value` in decimal followed by `\r\n` so that it ends just before `end`.
    /// - Returns: where it starts. `buffer` has room for it (at most 22 bytes).
    private static func writeDecimalLine(_ value: UInt64, endingAt end: Int, in buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var start = end - 2
        buffer[start] = 13
        buffer[start + 1] = 10
        var rest = value
        repeat {
            start -= 1
            buffer[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        } while rest > 0
        return start
    }
}

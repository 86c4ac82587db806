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
        body.append(contentsOf: Self.lineEnd)
    }

    public mutating func appendArgument(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            appendHead(utf8.count)
            body.append(contentsOf: utf8)
        }
        body.append(contentsOf: Self.lineEnd)
    }

    public mutating func appendArgument(decimal n: Int64) {
        var value = n.magnitude
        var digits = 1
        while value >= 10 {
            value /= 10
            digits += 1
        }
        appendHead(digits + (n < 0 ? 1 : 0))
        if n < 0 { body.append(UInt8(ascii: "-")) }
        let start = body.count
        body.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        value = n.magnitude
        var index = start + digits - 1
        repeat {
            body[index] = UInt8(ascii: "0") + UInt8(value % 10)
            value /= 10
            index -= 1
        } while value > 0
        body.append(contentsOf: Self.lineEnd)
    }

    /// The command: its RESP bytes, ready to be queued as they are.
    public func command() -> RedisCommand {
        var head: [UInt8] = [UInt8(ascii: "*")]
        RESPEncoding.appendDecimal(count, to: &head)
        return RedisCommand(name: name, argumentCount: count, encoded: head + body)
    }

    private static let lineEnd: [UInt8] = [13, 10]

    /// `$LENGTH\r\n`, counting the argument.
    private mutating func appendHead(_ length: Int) {
        count += 1
        body.append(UInt8(ascii: "$"))
        RESPEncoding.appendDecimal(length, to: &body)
    }
}

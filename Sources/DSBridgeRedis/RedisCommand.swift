// SPDX-License-Identifier: MIT

/// One Redis command: its name and arguments, each a binary-safe byte string.
///
/// ```swift
/// RedisCommand("SET", "k", "v")
/// RedisCommand("SET", key, payloadBytes, "EX", 30)
/// ```
public struct RedisCommand: Sendable, Hashable, CustomStringConvertible {
    /// The command name first, then its arguments (only the name for a command written
    /// by a ``RESPCommandWriter``). Read-only: such a command is sent from its RESP, so a
    /// changed list would be ignored.
    public let arguments: [[UInt8]]
    /// The whole command in RESP, for one written by a ``RESPCommandWriter``.
    let encoded: [UInt8]?
    /// The count of arguments of an encoded command, its name included.
    private let encodedCount: Int

    /// A command from its raw arguments, the name first. An empty list is rejected when sent
    /// (``RedisClientError/invalidCommand(_:)``).
    public init(arguments: [[UInt8]]) {
        self.arguments = arguments
        encoded = nil
        encodedCount = 0
    }

    /// A command already in RESP (``RESPCommandWriter/command()``).
    init(name: String, argumentCount: Int, encoded: [UInt8]) {
        arguments = [Array(name.utf8)]
        self.encoded = encoded
        encodedCount = argumentCount
    }

    /// A command from its name and arguments of any ``RedisArgumentConvertible`` types
    /// (`String`, `[UInt8]`, `Int`, ...).
    public init<each Argument: RedisArgumentConvertible>(_ name: String, _ argument: repeat each Argument) {
        var arguments = [Array(name.utf8)]
        for value in repeat each argument {
            arguments.append(value.redisArgument)
        }
        self.init(arguments: arguments)
    }

    /// A command from its name and a list of arguments (e.g. keys built at run time).
    public init(_ name: String, arguments: [any RedisArgumentConvertible]) {
        self.init(arguments: [Array(name.utf8)] + arguments.map(\.redisArgument))
    }

    /// The command name, upper-cased (`"SET"`); empty for a command without arguments.
    public var name: String {
        guard let first = arguments.first else { return "" }
        return String(decoding: first, as: UTF8.self).uppercased()
    }

    /// The name and the argument count (arguments may be secrets or binary, so they are not
    /// shown): `SET (2 arguments)`.
    public var description: String {
        "\(name) (\(max((encoded == nil ? arguments.count : encodedCount) - 1, 0)) arguments)"
    }

    /// Why this command cannot be sent on a ``RedisClient``, or `nil` when it can: it needs
    /// a name, and must answer exactly one reply (no `SUBSCRIBE`, `MONITOR`: use
    /// ``RedisSubscriber``).
    var problem: String? {
        guard let first = arguments.first, !first.isEmpty else { return "a command needs a name (its argument list is empty)" }
        switch name {
        case "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE", "MONITOR", "RESET", "QUIT":
            return "\(name) changes the connection's reply model and cannot be sent on a RedisClient (use RedisSubscriber for pub/sub)"
        default:
            return nil
        }
    }
}

// SPDX-License-Identifier: MIT

/// One Redis command: its name and arguments, each a binary-safe byte string.
///
/// ```swift
/// RedisCommand("SET", "k", "v")
/// RedisCommand("SET", key, payloadBytes, "EX", 30)
/// ```
public struct RedisCommand: Sendable, Hashable, CustomStringConvertible {
    /// The command name first, then its arguments.
    public var arguments: [[UInt8]]

    /// A command from its raw arguments, the name first. An empty list is rejected when sent
    /// (``RedisClientError/invalidCommand(_:)``).
    public init(arguments: [[UInt8]]) {
        self.arguments = arguments
    }

    /// A command from its name and arguments of any ``RedisArgumentConvertible`` types
    /// (`String`, `[UInt8]`, `Int`, ...).
    public init<each Argument: RedisArgumentConvertible>(_ name: String, _ argument: repeat each Argument) {
        var arguments = [Array(name.utf8)]
        for value in repeat each argument {
            arguments.append(value.redisArgument)
        }
        self.arguments = arguments
    }

    /// A command from its name and a list of arguments (e.g. keys built at run time).
    public init(_ name: String, arguments: [any RedisArgumentConvertible]) {
        self.arguments = [Array(name.utf8)] + arguments.map(\.redisArgument)
    }

    /// The command name, upper-cased (`"SET"`); empty for a command without arguments.
    public var name: String {
        guard let first = arguments.first else { return "" }
        return String(decoding: first, as: UTF8.self).uppercased()
    }

    /// The name and the argument count (arguments may be secrets or binary, so they are not
    /// shown): `SET (2 arguments)`.
    public var description: String {
        "\(name) (\(max(arguments.count - 1, 0)) arguments)"
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

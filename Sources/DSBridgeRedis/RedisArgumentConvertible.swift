// SPDX-License-Identifier: MIT

/// A value that can be one argument of a ``RedisCommand``: its bytes as Redis receives them.
public protocol RedisArgumentConvertible {
    /// The argument's bytes (binary-safe).
    var redisArgument: [UInt8] { get }
}

extension String: RedisArgumentConvertible {
    /// The UTF-8 bytes.
    public var redisArgument: [UInt8] { Array(utf8) }
}

extension Substring: RedisArgumentConvertible {
    /// The UTF-8 bytes.
    public var redisArgument: [UInt8] { Array(utf8) }
}

extension Array: RedisArgumentConvertible where Element == UInt8 {
    /// The bytes themselves.
    public var redisArgument: [UInt8] { self }
}

extension ArraySlice: RedisArgumentConvertible where Element == UInt8 {
    /// The bytes themselves.
    public var redisArgument: [UInt8] { Array(self) }
}

extension Int: RedisArgumentConvertible {
    /// The decimal digits, as Redis expects numbers (`EXPIRE k 10`).
    public var redisArgument: [UInt8] { Array(String(self).utf8) }
}

extension Int64: RedisArgumentConvertible {
    /// The decimal digits.
    public var redisArgument: [UInt8] { Array(String(self).utf8) }
}

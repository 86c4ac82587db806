// SPDX-License-Identifier: MIT

/// A Lua script and its SHA-1, to run with `EVALSHA` (the script is sent once, not with
/// every call).
///
/// Redis forgets scripts on restart and on `SCRIPT FLUSH`: load them in
/// ``RedisClient/onConnected`` (``loadCommand``), and when a reply is `NOSCRIPT`
/// (``isNoScript(_:)``) send ``eval(keys:arguments:)`` instead, which also loads it.
///
/// ```swift
/// let bump = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])")
/// var replies = try await client.send([bump.evalSHA(keys: ["n"], arguments: [5])])
/// if RedisScript.isNoScript(replies[0]) { replies = try await client.send([bump.eval(keys: ["n"], arguments: [5])]) }
/// ```
public struct RedisScript: Sendable, Hashable {
    /// The Lua source.
    public let source: String
    /// The source's SHA-1 in lower-case hex: the name `EVALSHA` takes, and what
    /// `SCRIPT LOAD` answers.
    public let sha1: String

    /// A script from its Lua source (its SHA-1 computed here, no round trip needed).
    public init(_ source: String) {
        self.source = source
        self.sha1 = SHA1.hex(source.utf8)
    }

    /// `SCRIPT LOAD source`: makes ``evalSHA(keys:arguments:)`` work until Redis restarts or
    /// flushes its scripts; it answers ``sha1``.
    public var loadCommand: RedisCommand {
        RedisCommand("SCRIPT", "LOAD", source)
    }

    /// `EVALSHA sha1 numkeys keys... args...`.
    public func evalSHA(keys: [any RedisArgumentConvertible] = [], arguments: [any RedisArgumentConvertible] = []) -> RedisCommand {
        RedisCommand("EVALSHA", arguments: [sha1, keys.count] + keys + arguments)
    }

    /// `EVAL source numkeys keys... args...`: the fallback after `NOSCRIPT` (it loads the
    /// script too).
    public func eval(keys: [any RedisArgumentConvertible] = [], arguments: [any RedisArgumentConvertible] = []) -> RedisCommand {
        RedisCommand("EVAL", arguments: [source, keys.count] + keys + arguments)
    }

    /// Whether `reply` is Redis' `NOSCRIPT` error: the script is not loaded, send
    /// ``eval(keys:arguments:)``.
    public static func isNoScript(_ reply: RedisValue) -> Bool {
        reply.errorMessage?.hasPrefix("NOSCRIPT") == true
    }
}

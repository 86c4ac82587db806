// SPDX-License-Identifier: MIT

/// Limits and timings of the bridge (PROTOCOL.md 2, 4, 7). Every default is the one the
/// protocol names.
public struct BridgeConfiguration: Sendable {
    /// Deepest JSON nesting accepted in a frame (`maxDepth`, default 128).
    public var maxDepth: Int = 128
    /// Largest message accepted, in bytes (`maxMessageBytes`, default 4 MiB).
    public var maxMessageBytes: Int = 4 << 20
    /// Silence after which the server sends `hb` (`heartbeatMs`, default 20000).
    public var heartbeatMs: Int = 20_000
    /// How long a session outlives its socket (`graceMs`, default 60000).
    public var graceMs: Int = 60_000
    /// How long a socket may stay without `hello` (`helloTimeoutMs`, default 10000).
    public var helloTimeoutMs: Int = 10_000
    /// How long a sync HTTP call waits for the socket calls it names (`afterTimeoutMs`, default 5000).
    public var afterTimeoutMs: Int = 5_000
    /// Sessions at most (`maxSessions`, default 100000).
    public var maxSessions: Int = 100_000
    /// Sessions at most per client address (`maxSessionsPerAddress`, default 10000).
    public var maxSessionsPerAddress: Int = 10_000
    /// Pending socket calls before the server stops reading (`maxCallsPending`, default 1000).
    public var maxCallsPending: Int = 1_000
    /// Running async calls per session (`maxAsyncCalls`, default 10000).
    public var maxAsyncCalls: Int = 10_000
    /// Calls a session may start per second, socket and sync HTTP together, with bursts of
    /// one second's worth (`maxCallsPerSecond`, default 20000; 0 = no limit). Calls above
    /// the rate wait (the socket is not read meanwhile); none is refused or lost.
    public var maxCallsPerSecond: Int = 20_000
    /// Unacknowledged messages kept per session (`replayMaxMessages`, default 10000).
    public var replayMaxMessages: Int = 10_000
    /// Unacknowledged bytes kept per session (`replayMaxBytes`, default 8 MiB).
    public var replayMaxBytes: Int = 8 << 20
    /// Bytes held for all sessions together before the largest holders are ended
    /// (`memoryBudget`, PROTOCOL.md 2.6; ``MemoryBudget``). The library's default is no
    /// budget (`Int.max`); the daemon's is a quarter of the memory it may use.
    public var memoryBudget: Int = .max
    /// The shared secret every `hello` must carry as `auth` (`nil` = no check).
    public var authToken: String? = nil

    public init() {}
}

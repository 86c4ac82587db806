// SPDX-License-Identifier: MIT

/// The delays between reconnection attempts: 100 ms doubling to 5 s, each drawn at random
/// from its upper half (jitter, so that many clients do not reconnect in step), and back to
/// the start after a connection succeeds.
struct RedisBackoff: Sendable {
    /// The first delay's upper bound, in milliseconds.
    static let initialMs = 100
    /// The largest delay, in milliseconds.
    static let maximumMs = 5_000

    /// The upper bound of the next delay.
    private(set) var currentMs = initialMs

    /// The next delay, in milliseconds: at random in `currentMs / 2 ... currentMs`; the bound
    /// then doubles (up to ``maximumMs``).
    mutating func nextDelayMs<Random: RandomNumberGenerator>(using random: inout Random) -> Int {
        let delay = Int.random(in: currentMs / 2...currentMs, using: &random)
        currentMs = min(currentMs * 2, Self.maximumMs)
        return delay
    }

    /// The next delay, with the system's random numbers.
    mutating func nextDelayMs() -> Int {
        var random = SystemRandomNumberGenerator()
        return nextDelayMs(using: &random)
    }

    /// A connection succeeded: the next failure waits the shortest delay again.
    mutating func reset() {
        currentMs = Self.initialMs
    }
}

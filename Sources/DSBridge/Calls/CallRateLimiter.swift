// SPDX-License-Identifier: MIT

/// A token bucket for the calls of one session: `perSecond` calls a second on average,
/// bursts of up to one second's worth. Calls over the rate are not refused: the caller
/// learns how long to wait before running them, so a flooding page is slowed down
/// (its socket stops being read) and loses nothing. Pure: time is passed in.
public struct CallRateLimiter: Sendable, Equatable {
    /// Calls a second allowed on average; also the largest burst.
    public let perSecond: Int
    private var tokens: Double
    private var updatedAt: Int64

    /// A full bucket at `now` (milliseconds on any monotonic clock).
    public init(perSecond: Int, now: Int64) {
        self.perSecond = max(1, perSecond)
        self.tokens = Double(self.perSecond)
        self.updatedAt = now
    }

    /// Takes `count` calls at `now`.
    /// - Returns: milliseconds to wait before running them; 0 means at once.
    public mutating func take(_ count: Int, now: Int64) -> Int {
        if now > updatedAt {
            tokens = min(Double(perSecond), tokens + Double(now - updatedAt) * Double(perSecond) / 1000)
            updatedAt = now
        }
        tokens -= Double(max(0, count))
        if tokens >= 0 { return 0 }
        return Int((-tokens * 1000 / Double(perSecond)).rounded(.up))
    }
}

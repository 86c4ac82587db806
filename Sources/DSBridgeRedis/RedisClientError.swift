// SPDX-License-Identifier: MIT

/// Why a batch sent on a ``RedisClient`` has no replies.
///
/// An error *reply* (`-ERR ...`) is not one of these: it is a ``RedisValue/error(_:)`` in
/// the batch's replies.
public enum RedisClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Redis cannot be reached: not connected (yet, or any more), the connection was lost, or
    /// no reply came within the command timeout. A batch that failed before it was written
    /// did not run; one in flight when the connection broke may or may not have run (its
    /// outcome is unknown). The text says which, and why.
    case unavailable(String)
    /// The client was stopped (``RedisClient/stop()``): the batch was not written.
    case closed
    /// More batches are queued than the client's limit (`maxQueuedBatches`): Redis is slower
    /// than the callers; the batch was not queued.
    case overloaded(limit: Int)
    /// The batch holds a command that cannot be sent (an empty one, or `SUBSCRIBE` and the
    /// like); nothing of the batch was written.
    case invalidCommand(String)

    public var description: String {
        switch self {
        case .unavailable(let reason): return "redis unavailable: \(reason)"
        case .closed: return "redis client stopped: the batch was not sent (the client does not restart; make a new one)"
        case .overloaded(let limit):
            return "redis client overloaded: \(limit) batches already queued; Redis is not keeping up, retry later or raise maxQueuedBatches"
        case .invalidCommand(let reason): return "invalid redis command: \(reason)"
        }
    }
}

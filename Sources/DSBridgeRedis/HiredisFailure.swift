// SPDX-License-Identifier: MIT

/// Why a hiredis connection stopped working (or never did): the text for the log and for
/// ``RedisClientError/unavailable(_:)``. After any of these the connection is dropped.
struct HiredisFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, said for a person ("connection refused", "no reply within 2000 ms").
    var message: String

    var description: String { message }
}

// SPDX-License-Identifier: MIT
import Glibc

/// Nanoseconds on the monotonic clock (`CLOCK_MONOTONIC`): cheap, for latency samples and
/// phase deadlines. Any thread.
@inline(__always)
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

// SPDX-License-Identifier: MIT
import CoreMetrics
import Glibc

/// `dsbridge_event_loop_lag_seconds` (PROTOCOL.md 2.6): how late the service thread ran
/// what was due — a timer's earliest deadline, or work another thread posted (measured from
/// the wake-up). A loop that keeps up shows lags well under a millisecond; lags of tens of
/// milliseconds mean the network thread is saturated (too much inline work, or the machine
/// is out of CPU) and every page waits that long.
public enum LoopLag {
    /// The metric's name.
    public static let label = "dsbridge_event_loop_lag_seconds"
    /// Histogram buckets (the daemon configures its Prometheus factory with them).
    public static let buckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5),
    ]
    private static let timer = Timer(label: label)

    /// Makes the histogram known to the metrics backend, empty (the first scrape has it).
    static func prepare() { _ = timer }

    /// The monotonic clock in nanoseconds (any thread).
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    static func record(since start: UInt64) {
        let end = now()
        record(nanoseconds: end > start ? end - start : 0)
    }

    static func record(nanoseconds: UInt64) {
        timer.recordNanoseconds(Int64(clamping: nanoseconds))
    }
}

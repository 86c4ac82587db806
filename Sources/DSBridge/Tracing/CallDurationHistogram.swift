// SPDX-License-Identifier: MIT

/// `dsbridge_call_duration_seconds`, the time a native method took to answer: its label and
/// the buckets a backend should give it.
///
/// Most calls a page makes take microseconds (a `@nonblocking` method answers in a few on the
/// network thread) and async ones milliseconds to seconds. A backend's default buckets
/// (swift-prometheus: 5 ms to 10 s) put nearly every call in the first; these reach from
/// 25 µs to 10 s, eleven of them, as many as the default (recording a value walks them all).
public enum CallDurationHistogram {
    /// The metric's label.
    public static let label = "dsbridge_call_duration_seconds"
    /// The bucket bounds (the daemon configures its Prometheus factory with them).
    public static let buckets: [Duration] = [
        .microseconds(25), .microseconds(100), .microseconds(250), .milliseconds(1), .microseconds(2_500),
        .milliseconds(10), .milliseconds(25), .milliseconds(100), .milliseconds(250), .seconds(1), .seconds(10),
    ]
}

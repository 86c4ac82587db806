// SPDX-License-Identifier: MIT
import CoreMetrics
import Synchronization

/// The bridge's metrics, emitted through swift-metrics (the application chooses the
/// backend; the daemon uses Prometheus). Handles are made once and cached, so the hot path
/// only increments.
final class BridgeMetrics: Sendable {
    private let sessionsOpened = Counter(label: "dsbridge_sessions_opened_total")
    private let httpSyncCalls = Counter(label: "dsbridge_http_sync_calls_total")
    private let throttledCalls = Counter(label: "dsbridge_calls_throttled_total")
    private let callDuration = Timer(label: CallDurationHistogram.label)
    private let cached = Mutex<[String: Counter]>([:])
    /// `dsbridge_native_calls_total` by outcome, in ``NativeCallOutcome/allCases`` order:
    /// made once (every native call's end increments one).
    private let nativeCallCounters = NativeCallOutcome.allCases.map {
        Counter(label: "dsbridge_native_calls_total", dimensions: [("outcome", $0.rawValue)])
    }
    /// `dsbridge_bound_overflows_total` by bound: both made at once, so the family is in
    /// `/metrics` (at 0) before the first overflow.
    private let overflowCounters = OverflowBound.allCases.map {
        Counter(label: "dsbridge_bound_overflows_total", dimensions: [("bound", $0.rawValue)])
    }
    /// `dsbridge_calls_total` by (method, outcome): the per-call path builds no key string,
    /// and a call like the one before it (most are) compares two strings instead of hashing.
    private let callCounters = Mutex<CallCounters>(CallCounters())

    private struct CallCounters {
        var table: [CallKey: Counter] = [:]
        var last: (key: CallKey, counter: Counter)?
    }

    private struct CallKey: Hashable, Sendable {
        let method: String
        let outcome: String
    }

    private func counter(_ label: String, _ dimensions: [(String, String)]) -> Counter {
        let key = label + dimensions.map { "|\($0.0)=\($0.1)" }.joined()
        return cached.withLock { table in
            if let c = table[key] { return c }
            let c = Counter(label: label, dimensions: dimensions)
            table[key] = c
            return c
        }
    }

    func sessionOpened() { sessionsOpened.increment() }

    /// `closeCode`: the code the socket was closed with, `nil` when none (expiry, shutdown).
    func sessionClosed(closeCode: Int?) {
        counter("dsbridge_sessions_closed_total", [("code", closeCode.map(String.init) ?? "none")]).increment()
    }

    /// A call's outcome; `method` is the resolved name or `unknown` (page-chosen names that
    /// match nothing are not used as labels).
    func call(method: String, outcome: String, nanoseconds: Int64?) {
        let key = CallKey(method: method, outcome: outcome)
        let counter = callCounters.withLock { counters in
            if let last = counters.last, last.key == key { return last.counter }
            let c: Counter
            if let known = counters.table[key] {
                c = known
            } else {
                c = Counter(label: "dsbridge_calls_total", dimensions: [("method", method), ("outcome", outcome)])
                counters.table[key] = c
            }
            counters.last = (key, c)
            return c
        }
        counter.increment()
        if let nanoseconds { callDuration.recordNanoseconds(nanoseconds) }
    }

    func httpSyncCall() { httpSyncCalls.increment() }

    /// Calls of a session had to wait for its rate (`maxCallsPerSecond`).
    func throttled() { throttledCalls.increment() }

    /// A native-initiated call ended: `completed`, `failed`, `timeout`, `sessionEnded`, `tooLarge`.
    func nativeCall(outcome: NativeCallOutcome) {
        nativeCallCounters[outcome.index].increment()
    }

    /// A replay bound was exceeded.
    func overflow(bound: OverflowBound) {
        overflowCounters[bound.index].increment()
    }
}

/// The replay bound a session exceeded, as `dsbridge_bound_overflows_total` labels it.
enum OverflowBound: String, CaseIterable, Sendable {
    case replayMaxMessages, replayMaxBytes

    /// The position in ``allCases``.
    var index: Int {
        switch self {
        case .replayMaxMessages: 0
        case .replayMaxBytes: 1
        }
    }
}

/// How a native-initiated call ended, as `dsbridge_native_calls_total` labels it.
enum NativeCallOutcome: String, CaseIterable, Sendable {
    case completed, failed, timeout, sessionEnded, tooLarge

    /// The outcome of a final event; `nil` for progress.
    init?(_ event: NativeCallEvent) {
        switch event {
        case .progress: return nil
        case .completed: self = .completed
        case .failed(.javaScript): self = .failed
        case .failed(.timeout): self = .timeout
        case .failed(.sessionEnded): self = .sessionEnded
        case .failed(.tooLarge): self = .tooLarge
        }
    }

    /// Its position in ``allCases``.
    var index: Int {
        switch self {
        case .completed: 0
        case .failed: 1
        case .timeout: 2
        case .sessionEnded: 3
        case .tooLarge: 4
        }
    }
}

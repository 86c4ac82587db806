// SPDX-License-Identifier: MIT

/// One metric family of `/metrics`: its name, Prometheus type and `# HELP` text.
public struct MetricFamily: Sendable, Hashable {
    /// The Prometheus type of a family.
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// The family's name (`dsbridge_…`).
    public let name: String
    /// Its type, as its `# TYPE` line says.
    public let kind: Kind
    /// Its `# HELP` text.
    public let help: String
    /// Exported only by a node in cluster mode (`--redis`).
    public let clusterOnly: Bool

    init(_ name: String, _ kind: Kind, _ help: String, clusterOnly: Bool = false) {
        self.name = name
        self.kind = kind
        self.help = help
        self.clusterOnly = clusterOnly
    }
}

/// Every metric family the daemon exports (docs/OPERATIONS.md lists the same, and
/// `scripts/metrics_families_test.py` compares the two with a fresh daemon's first scrape).
///
/// Every family is in `/metrics` from the first scrape (PROTOCOL.md 6, text revision 1.13):
/// the families without labels, or with a fixed set of label values, are made when the
/// server starts (``BridgeServer`` calls ``TransportMetrics/prepare()`` and the others), and
/// ``completing(_:clusterMode:)`` adds the `# HELP` and `# TYPE` lines of a family whose
/// labels name what happened (a method, a close code) until its first sample.
public enum MetricFamilies {
    /// Every family, in the order docs/OPERATIONS.md lists them.
    public static let all: [MetricFamily] = [
        MetricFamily(
            "dsbridge_sessions", .gauge,
            "Sessions on this node by state: connected (a socket attached), ready (the page signalled dsinit), in_grace (no socket, waiting for a resume)."
        ),
        MetricFamily("dsbridge_sessions_opened_total", .counter, "Sessions opened on this node (new sessions; resumes are not counted)."),
        MetricFamily(
            "dsbridge_sessions_closed_total", .counter,
            "Sessions ended on this node, by the close code their socket got (none: expired, shut down or moved)."),
        MetricFamily(
            "dsbridge_calls_total", .counter, "Page-to-native calls by method and outcome (ok, methodNotFound, badArgument, failed, timeout, overloaded)."
        ),
        MetricFamily("dsbridge_call_duration_seconds", .histogram, "Time a native method took to answer, from its start to its return or completion."),
        MetricFamily(
            "dsbridge_calls_throttled_total", .counter, "Frames of calls held back by the per-session call rate (max-calls-per-second); none is refused."),
        MetricFamily("dsbridge_http_sync_calls_total", .counter, "Synchronous calls over POST /dsbridge/call."),
        MetricFamily(
            "dsbridge_native_calls_total", .counter,
            "Native-initiated calls of page functions by outcome (completed, failed, timeout, sessionEnded, tooLarge)."),
        MetricFamily(
            "dsbridge_bound_overflows_total", .counter,
            "Sessions closed 4008 because a replay bound was exceeded, by bound (replayMaxMessages, replayMaxBytes)."),
        MetricFamily("dsbridge_bytes_in_total", .counter, "WebSocket payload bytes read from pages."),
        MetricFamily("dsbridge_bytes_out_total", .counter, "WebSocket payload bytes written to pages."),
        MetricFamily("dsbridge_queued_messages", .gauge, "Server-to-page messages held before dsinit or not acknowledged yet, all sessions together."),
        MetricFamily("dsbridge_replay_bytes", .gauge, "Bytes of unacknowledged messages kept for replay, all sessions together."),
        MetricFamily("dsbridge_accept_pauses_total", .counter, "Times accepting new connections paused because file descriptors ran short."),
        MetricFamily(
            "dsbridge_event_loop_lag_seconds", .histogram,
            "How late the network thread ran a timer it had scheduled (a busy or blocked loop shows here)."),
        MetricFamily(
            "dsbridge_memory_held_bytes", .gauge,
            "Bytes held for sessions (unacknowledged and queued messages, frames not yet processed, held invokes, sync-call bodies), counted against the memory budget."
        ),
        MetricFamily(
            "dsbridge_memory_budget_bytes", .gauge,
            "The memory budget (--memory-budget): above 90% of it the largest holders are ended; above it new sessions are refused."),
        MetricFamily(
            "dsbridge_memory_budget_sessions_ended_total", .counter,
            "Sessions ended by the memory budget (closed 4008 memory budget, or ended silently in their grace period)."),
        MetricFamily(
            "dsbridge_memory_budget_sessions_refused_total", .counter,
            "New sessions refused while over the memory budget (4029 on the socket, 429 on POST /dsbridge/session)."),
        MetricFamily(
            "dsbridge_cluster_redis_up", .gauge,
            "Cluster mode: 1 while this node reaches Redis, 0 while it does not (it then serves its own sessions only).", clusterOnly: true),
        MetricFamily(
            "dsbridge_cluster_takeovers_total", .counter,
            "Cluster mode: sessions this node took over from another node when their page resumed here.", clusterOnly: true),
        MetricFamily(
            "dsbridge_cluster_late_messages_total", .counter,
            "Cluster mode: messages of calls that finished here after their session moved, passed to its new node.", clusterOnly: true),
        MetricFamily(
            "dsbridge_cluster_journal_failures_total", .counter,
            "Cluster mode: journal writes that failed (the sessions went on without the journal until Redis was back).", clusterOnly: true),
    ]

    private static let byName: [String: MetricFamily] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The family called `name`, if the daemon exports one.
    public static func named(_ name: String) -> MetricFamily? { byName[name] }

    /// `text` (a Prometheus exposition) with a `# HELP` line before each `# TYPE` line that
    /// has none (``MetricHelp/annotate(_:)``), followed by the `# HELP` and `# TYPE` lines of
    /// every family the daemon exports that has no `# TYPE` line in it (the cluster-only ones
    /// only when `clusterMode`). One pass over `text`.
    public static func completing(_ text: [UInt8], clusterMode: Bool) -> [UInt8] {
        var present = Set<String>()
        var out = MetricHelp.annotate(text, typed: &present)
        if let last = out.last, last != UInt8(ascii: "\n") { out.append(UInt8(ascii: "\n")) }
        for family in all where (clusterMode || !family.clusterOnly) && !present.contains(family.name) {
            out += Array("# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.kind.rawValue)\n".utf8)
        }
        return out
    }
}

// SPDX-License-Identifier: MIT

/// `# HELP` text for every metric family of `/metrics`. The metrics are made through
/// swift-metrics, whose Prometheus backend has no help text for them; ``annotate(_:)`` puts
/// each family's line before its `# TYPE` line as the exposition is served.
public enum MetricHelp {
    /// Help text by metric family (a family whose name is missing here gets none; a test
    /// checks that every family the code makes is here).
    public static let texts: [String: String] = [
        "dsbridge_sessions_opened_total": "Sessions opened on this node (new sessions; resumes are not counted).",
        "dsbridge_sessions_closed_total": "Sessions ended on this node, by the close code their socket got (none: expired, shut down or moved).",
        "dsbridge_sessions":
            "Sessions on this node by state: connected (a socket attached), ready (the page signalled dsinit), in_grace (no socket, waiting for a resume).",
        "dsbridge_calls_total": "Page-to-native calls by method and outcome (ok, methodNotFound, badArgument, failed, timeout, overloaded).",
        "dsbridge_call_duration_seconds": "Time a native method took to answer, from its start to its return or completion.",
        "dsbridge_calls_throttled_total": "Frames of calls held back by the per-session call rate (max-calls-per-second); none is refused.",
        "dsbridge_http_sync_calls_total": "Synchronous calls over POST /dsbridge/call.",
        "dsbridge_native_calls_total": "Native-initiated calls of page functions by outcome (completed, failed, timeout, sessionEnded, tooLarge).",
        "dsbridge_bound_overflows_total": "Sessions closed 4008 because a replay bound was exceeded, by bound (replayMaxMessages, replayMaxBytes).",
        "dsbridge_bytes_in_total": "WebSocket payload bytes read from pages.",
        "dsbridge_bytes_out_total": "WebSocket payload bytes written to pages.",
        "dsbridge_queued_messages": "Server-to-page messages held before dsinit or not acknowledged yet, all sessions together.",
        "dsbridge_replay_bytes": "Bytes of unacknowledged messages kept for replay, all sessions together.",
        "dsbridge_accept_pauses_total": "Times accepting new connections paused because file descriptors ran short.",
        "dsbridge_event_loop_lag_seconds": "How late the network thread ran a timer it had scheduled (a busy or blocked loop shows here).",
        "dsbridge_cluster_redis_up": "Cluster mode: 1 while this node reaches Redis, 0 while it does not (it then serves its own sessions only).",
        "dsbridge_cluster_takeovers_total": "Cluster mode: sessions this node took over from another node when their page resumed here.",
        "dsbridge_cluster_late_messages_total": "Cluster mode: messages of calls that finished here after their session moved, passed to its new node.",
        "dsbridge_cluster_journal_failures_total": "Cluster mode: journal writes that failed (the sessions went on without the journal until Redis was back).",
    ]

    /// `text` (the Prometheus exposition) with a `# HELP` line before each `# TYPE` line
    /// that has none and whose family is in ``texts``.
    public static func annotate(_ text: [UInt8]) -> [UInt8] {
        let typePrefix = Array("# TYPE ".utf8)
        let helpPrefix = Array("# HELP ".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.count + 4096)
        var previousWasHelp = false
        var start = 0
        while start < text.count {
            var end = start
            while end < text.count, text[end] != UInt8(ascii: "\n") { end += 1 }
            let line = text[start..<end]
            if !previousWasHelp, line.starts(with: typePrefix) {
                let rest = line.dropFirst(typePrefix.count)
                let name = String(decoding: rest.prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)
                if let help = texts[name] {
                    out += helpPrefix
                    out += Array(name.utf8)
                    out.append(UInt8(ascii: " "))
                    out += Array(help.utf8)
                    out.append(UInt8(ascii: "\n"))
                }
            }
            previousWasHelp = line.starts(with: helpPrefix)
            out += line
            if end < text.count { out.append(UInt8(ascii: "\n")) }
            start = end + 1
        }
        return out
    }
}

// SPDX-License-Identifier: MIT
import Foundation

/// The human-readable form of a ``BenchReport``: one aligned `name  value` row per figure.
enum ReportTable {
    static func render(_ r: BenchReport) -> String {
        var rows: [(String, String)] = []
        rows.append(("scenario", "\(r.scenario.rawValue) → \(r.target)"))
        rows.append(("load", "\(r.sessions) sessions × \(r.inFlight) in flight, payload \(r.payloadBytes) B, \(r.threads) client thread(s)"))
        rows.append(("measured", String(format: "%.1f s after %.1f s warm-up", r.measuredSeconds, r.warmupSeconds)))
        rows.append(("throughput", String(format: "%.0f ", r.throughput) + r.unit))
        if r.scenario != .idle {
            rows.append(("completed", "\(r.completed)"))
            rows.append(("calls/s", String(format: "%.0f", r.callsPerSecond)))
            rows.append(("messages/s", String(format: "%.0f", r.messagesPerSecond)))
        }
        if let l = r.latency {
            rows.append(
                (
                    "latency (µs)",
                    String(
                        format: "p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  (%llu samples)",
                        l.p50, l.p90, l.p99, l.p999, l.max, l.samples)
                ))
            rows.append(("latency is", r.latencyMeasures))
        }
        if let s = r.server {
            var cpu = String(format: "%.0f%% of a core", s.cpuPercent)
            if let per = s.cpuMicrosPerOperation { cpu += String(format: ", %.2f µs per operation", per) }
            rows.append(("server cpu", cpu))
            rows.append(("server rss", mib(s.rssBytes)))
        }
        rows.append(("client cpu", String(format: "%.0f%% of a core", r.clientCPUPercent)))
        if let i = r.idle {
            rows.append(("sessions held", "\(i.sessions) (opened in \(String(format: "%.1f", i.openSeconds)) s)"))
            rows.append(("answered after", "\(i.answered) of \(i.sessions)"))
            if let b = i.rssBeforeBytes, let h = i.rssHeldBytes { rows.append(("server rss", "\(mib(b)) before → \(mib(h)) held")) }
            if let per = i.rssPerSessionBytes { rows.append(("rss per session", String(format: "%.2f KiB", per / 1024))) }
        }
        rows.append(("errors", r.errors.isEmpty ? "none" : r.errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
        rows.append(
            ("close codes", r.closeCodes.isEmpty ? "none" : r.closeCodes.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")))
        for note in r.notes { rows.append(("note", note)) }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0 + String(repeating: " ", count: width - $0.0.count) + "  " + $0.1 }.joined(separator: "\n")
    }

    private static func mib(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }
}

// SPDX-License-Identifier: MIT
import DSBridge

/// The memory budget's lines of `/metrics` (PROTOCOL.md 2.6), in the Prometheus text
/// format, read from ``MemoryBudget``'s atomics at scrape time. Written here rather than
/// through swift-metrics so they carry `# HELP` text (its Prometheus backend gives none).
enum MemoryBudgetMetrics {
    static func render(_ budget: MemoryBudget) -> [UInt8] {
        let families: [(name: String, type: String, help: String, value: Int)] = [
            (
                "dsbridge_memory_held_bytes", "gauge",
                "Bytes held for sessions (unacknowledged and queued messages, frames not yet processed, held invokes, sync-call bodies), counted against the memory budget.",
                budget.held
            ),
            (
                "dsbridge_memory_budget_bytes", "gauge",
                "The memory budget (--memory-budget): above it the largest holders are ended; above 90% of it new sessions are refused.",
                budget.limit
            ),
            (
                "dsbridge_memory_budget_sessions_ended_total", "counter",
                "Sessions ended by the memory budget (closed 4008 memory budget, or ended silently in their grace period).",
                budget.sessionsEnded
            ),
            (
                "dsbridge_memory_budget_sessions_refused_total", "counter",
                "New sessions refused while over 90% of the memory budget (4029 on the socket, 429 on POST /dsbridge/session).",
                budget.sessionsRefused
            ),
        ]
        var text = ""
        for f in families {
            text += "# HELP \(f.name) \(f.help)\n# TYPE \(f.name) \(f.type)\n\(f.name) \(f.value)\n"
        }
        return Array(text.utf8)
    }
}

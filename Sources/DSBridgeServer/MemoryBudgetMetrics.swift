// SPDX-License-Identifier: MIT
import DSBridge

/// The memory budget's lines of `/metrics` (PROTOCOL.md 2.6), in the Prometheus text
/// format, read from ``MemoryBudget``'s atomics at scrape time. Written here rather than
/// through swift-metrics so they are read, not recorded; their names, types and `# HELP`
/// texts are those of ``MetricFamilies``.
enum MemoryBudgetMetrics {
    static func render(_ budget: MemoryBudget) -> [UInt8] {
        let values: [(name: String, value: Int)] = [
            ("dsbridge_memory_held_bytes", budget.held),
            ("dsbridge_memory_budget_bytes", budget.limit),
            ("dsbridge_memory_budget_sessions_ended_total", budget.sessionsEnded),
            ("dsbridge_memory_budget_sessions_refused_total", budget.sessionsRefused),
        ]
        var text = ""
        for (name, value) in values {
            guard let family = MetricFamilies.named(name) else { continue }
            text += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.kind.rawValue)\n\(name) \(value)\n"
        }
        return Array(text.utf8)
    }
}

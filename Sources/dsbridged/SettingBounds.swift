// SPDX-License-Identifier: MIT

/// Upper bounds of the numeric settings. Larger values would overflow the daemon's
/// arithmetic (2 × `heartbeat-ms`, deadlines in ms, buffer sizes) or its stack (JSON nested
/// `max-depth` levels is parsed and written recursively); none is a sensible setting.
enum SettingBounds {
    /// One day, for every duration in milliseconds.
    static let milliseconds = (value: 86_400_000, why: "one day")

    /// The bound of the setting `key` (its flag name without `--`).
    static func upper(_ key: String) -> (value: Int, why: String) {
        switch key {
        case "max-message-bytes": return (1 << 30, "1 GiB")
        case "replay-max-bytes": return (1 << 36, "64 GiB")
        case "memory-budget": return (1 << 50, "1 PiB")
        case "max-depth": return (1_000, "deeper JSON would exhaust a thread's stack")
        case "replay-max-messages", "max-sessions", "max-sessions-per-address": return (100_000_000, "a hundred million")
        case "max-calls-pending", "max-async-calls", "max-calls-per-second": return (10_000_000, "ten million")
        default:
            if key.hasSuffix("-ms") { return milliseconds }
            return (Int(Int32.max), "2^31 - 1")
        }
    }
}

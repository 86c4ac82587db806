// SPDX-License-Identifier: MIT

/// The result of one run: what `--json` prints, and what the table shows.
struct BenchReport: Codable, Sendable {
    /// Latency percentiles in microseconds.
    struct Latency: Codable, Sendable {
        var samples: UInt64
        var p50: Double
        var p90: Double
        var p99: Double
        var p999: Double
        var max: Double
        var mean: Double
    }

    /// The server process while measuring.
    struct Server: Codable, Sendable {
        var pid: Int32
        /// CPU time over wall time while measuring (100 = one core).
        var cpuPercent: Double
        /// Server CPU time per headline operation, microseconds.
        var cpuMicrosPerOperation: Double?
        /// Resident memory at the end of the measurement.
        var rssBytes: Int
    }

    /// `idle`: sessions held and the memory they cost the server.
    struct Idle: Codable, Sendable {
        var sessions: Int
        /// Sessions that answered the call made after holding.
        var answered: Int
        var rssBeforeBytes: Int?
        var rssHeldBytes: Int?
        /// (held - before) / sessions.
        var rssPerSessionBytes: Double?
        /// Seconds it took to open them all.
        var openSeconds: Double
    }

    var scenario: Scenario
    var target: String
    var sessions: Int
    var inFlight: Int
    var payloadBytes: Int
    var threads: Int
    var warmupSeconds: Double
    /// Seconds actually measured.
    var measuredSeconds: Double
    /// Headline operations per second, in ``unit``.
    var throughput: Double
    var unit: String
    /// Headline operations completed while measuring.
    var completed: Int
    /// Calls (or echoes) finished per second; for `async`, calls whose final `cb` arrived.
    var callsPerSecond: Double
    /// Server messages handled per second.
    var messagesPerSecond: Double
    /// What the latency measures.
    var latencyMeasures: String
    var latency: Latency?
    var errors: [String: Int]
    /// Close codes sent by the server (1006: dropped without a close frame).
    var closeCodes: [String: Int]
    var server: Server?
    /// The bench's own CPU while measuring (100 = one core).
    var clientCPUPercent: Double
    var idle: Idle?
    var notes: [String]

    /// Total errors over all kinds.
    var errorCount: Int { errors.values.reduce(0, +) }
}

extension Scenario {
    /// What a latency sample is, per scenario.
    var latencyMeaning: String {
        switch self {
        case .syn, .paced: return "call sent → its ret"
        case .async: return "call sent → its final cb"
        case .invoke: return "trigger sent → each invoke's answer accepted (ret of _dsb.returnValue)"
        case .http: return "request sent → response"
        case .idle: return "connect → welcome, and the final call → its ret"
        case .connect: return "connect → welcome"
        case .resume: return "reconnect → welcome (resumed)"
        case .echo: return "frame sent → its echo"
        }
    }
}

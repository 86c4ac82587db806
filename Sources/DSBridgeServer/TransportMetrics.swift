// SPDX-License-Identifier: MIT
import CoreMetrics
import DSBridge

/// Metrics of the transport, emitted through swift-metrics.
enum TransportMetrics {
    static let bytesIn = Counter(label: "dsbridge_bytes_in_total")
    static let bytesOut = Counter(label: "dsbridge_bytes_out_total")
    static let connected = Gauge(label: "dsbridge_sessions", dimensions: [("state", "connected")])
    static let ready = Gauge(label: "dsbridge_sessions", dimensions: [("state", "ready")])
    static let inGrace = Gauge(label: "dsbridge_sessions", dimensions: [("state", "in_grace")])
    static let queued = Gauge(label: "dsbridge_queued_messages")
    static let replayBytes = Gauge(label: "dsbridge_replay_bytes")

    /// Makes every transport family known to the metrics backend (so the first scrape has
    /// them at zero); call once the backend is bootstrapped.
    static func prepare() {
        _ = (bytesIn, bytesOut, connected, ready, inGrace, queued, replayBytes)
        _ = AcceptMetrics.pauses
        LoopLag.prepare()
    }

    /// Records the session gauges from the bridge's current state (at scrape time).
    static func recordSessionGauges(_ sessions: [BridgeSession]) {
        var c = 0
        var r = 0
        var g = 0
        var q = 0
        var b = 0
        for s in sessions {
            if s.isConnected { c += 1 } else { g += 1 }
            if s.isReady { r += 1 }
            q += s.queuedCount
            b += s.replayBytes
        }
        connected.record(c)
        ready.record(r)
        inGrace.record(g)
        queued.record(q)
        replayBytes.record(b)
    }
}

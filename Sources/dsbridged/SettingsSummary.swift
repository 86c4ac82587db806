// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeServer

/// What `--check-config` prints: every effective setting as `key value`, in the order of
/// the configuration reference. Secrets are shown as `(set)`, never their value.
enum SettingsSummary {
    static func lines(of s: DaemonSettings) -> [String] {
        let b = s.bridge
        let v = s.server
        func secret(_ value: String?) -> String { value == nil ? "(none)" : "(set)" }
        let pairs: [(String, String)] = [
            ("host", v.host), ("port", "\(v.port)"),
            ("admin-host", v.adminHost), ("admin-port", "\(v.adminPort)"),
            ("admin-token", secret(v.adminToken)), ("web-root", v.webRoot),
            ("allowed-origin", v.allowedOrigins.isEmpty ? "(own origin only)" : v.allowedOrigins.joined(separator: " ")),
            ("trusted-proxy", v.trustedProxies.isEmpty ? "(none)" : v.trustedProxies.joined(separator: " ")),
            ("auth-token", secret(b.authToken)),
            ("tls-cert", v.tlsCertificatePath ?? "(none)"), ("tls-key", v.tlsKeyPath ?? "(none)"),
            ("heartbeat-ms", "\(b.heartbeatMs)"), ("grace-ms", "\(b.graceMs)"),
            ("hello-timeout-ms", "\(b.helloTimeoutMs)"), ("after-timeout-ms", "\(b.afterTimeoutMs)"),
            ("drain-ms", "\(v.drainMs)"), ("max-message-bytes", "\(b.maxMessageBytes)"),
            ("max-depth", "\(b.maxDepth)"), ("max-calls-per-second", "\(b.maxCallsPerSecond)"),
            ("max-header-bytes", "\(v.maxHeaderBytes)"), ("body-timeout-ms", "\(v.bodyTimeoutMs)"), ("max-sessions", "\(b.maxSessions)"),
            ("max-sessions-per-address", "\(b.maxSessionsPerAddress)"),
            ("max-calls-pending", "\(b.maxCallsPending)"), ("max-async-calls", "\(b.maxAsyncCalls)"),
            ("replay-max-messages", "\(b.replayMaxMessages)"), ("replay-max-bytes", "\(b.replayMaxBytes)"),
            ("memory-budget", "\(b.memoryBudget) (\(s.memoryBudgetOrigin))"),
            ("log-level", s.logLevel.rawValue), ("demo", "\(s.demo)"), ("demo-tick-ms", "\(s.demoTickMs)"),
        ]
        let width = pairs.map(\.0.count).max() ?? 0
        return pairs.map { key, value in key.padding(toLength: width + 2, withPad: " ", startingAt: 0) + value }
    }
}

// SPDX-License-Identifier: MIT
import Foundation

/// The name of one daemon setting. The raw value is spelled once and used everywhere:
/// it is the flag (`--max-depth`), the key of the `--config` file (`"max-depth"`) and,
/// upper-cased, the environment variable (`DSBRIDGED_MAX_DEPTH`).
///
/// The cases are in the order of the configuration reference, which is also the order of
/// `--check-config`'s summary. What each setting is, its default, bounds and help text are
/// in the table, ``setting``.
public enum SettingKey: String, CaseIterable, Sendable, Hashable {
    case host
    case port
    case adminHost = "admin-host"
    case adminPort = "admin-port"
    case adminToken = "admin-token"
    case webRoot = "web-root"
    case allowedOrigin = "allowed-origin"
    case trustedProxy = "trusted-proxy"
    case authToken = "auth-token"
    case tlsCert = "tls-cert"
    case tlsKey = "tls-key"
    case heartbeatMs = "heartbeat-ms"
    case graceMs = "grace-ms"
    case helloTimeoutMs = "hello-timeout-ms"
    case afterTimeoutMs = "after-timeout-ms"
    case drainMs = "drain-ms"
    case maxMessageBytes = "max-message-bytes"
    case maxDepth = "max-depth"
    case maxCallsPerSecond = "max-calls-per-second"
    case maxHeaderBytes = "max-header-bytes"
    case bodyTimeoutMs = "body-timeout-ms"
    case maxSessions = "max-sessions"
    case maxSessionsPerAddress = "max-sessions-per-address"
    case maxCallsPending = "max-calls-pending"
    case maxAsyncCalls = "max-async-calls"
    case replayMaxMessages = "replay-max-messages"
    case replayMaxBytes = "replay-max-bytes"
    case memoryBudget = "memory-budget"
    case logLevel = "log-level"
    case redis
    case nodeID = "node-id"
    case otelEndpoint = "otel-endpoint"
    case otelProtocol = "otel-protocol"
    case demo
    case demoTickMs = "demo-tick-ms"

    /// The command-line flag: `--max-depth`.
    public var flag: String { "--" + rawValue }

    /// The key in the `--config` file: `max-depth`.
    public var configKey: String { rawValue }

    /// The environment variable: `DSBRIDGED_MAX_DEPTH`.
    public var environmentVariable: String { Self.environmentVariable(for: rawValue) }

    /// The environment variable of a flag name: `max-depth` is `DSBRIDGED_MAX_DEPTH`.
    public static func environmentVariable(for name: String) -> String {
        "DSBRIDGED_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The flag naming the config file (not a key of the file itself).
    public static let configFileFlag = "config"

    /// The environment variable naming the config file when `--config` is not given.
    public static let configFileVariable = environmentVariable(for: configFileFlag)
}

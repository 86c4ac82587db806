// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeServer
import Foundation
import Logging

/// Everything the daemon runs with, from defaults, the `--config` file, `DSBRIDGED_*`
/// environment variables and flags. Every value is checked by ``resolve(_:memoryLimit:descriptorHardLimit:)``.
public struct DaemonSettings: Sendable {
    /// The server's part.
    public var server = ServerConfiguration()
    /// The bridge's part (the memory budget's default is the daemon's, see ``memoryBudgetOrigin``).
    public var bridge = BridgeConfiguration()
    /// Whether the demo interfaces are registered (`--demo`, default off).
    public var demo = false
    /// Milliseconds between the demo's progress values (`--demo-tick-ms`, default 1000).
    public var demoTickMs = 1000
    /// The log level (`--log-level`, default `info`).
    public var logLevel = Logger.Level.info
    /// Cluster mode (docs/CLUSTER.md): the Redis every node shares (`--redis`,
    /// `redis://HOST:PORT[/DB]` or `unix:///path`); `nil`: one node alone, no Redis.
    public var redisURL: String?
    /// This node's name in the cluster (`--node-id`); `nil`: `HOSTNAME:PORT`.
    public var nodeID: String?
    /// Where spans go over OTLP/HTTP (`--otel-endpoint`); `nil`: no tracing.
    public var otelEndpoint: String?
    /// The OTLP/HTTP encoding (`--otel-protocol`): `http/protobuf` or `http/json`.
    public var otelProtocol = "http/protobuf"
    /// Where `bridge.memoryBudget` came from, for the log line at start: `set`, or the
    /// default's origin (`a quarter of N bytes of physical memory`).
    public var memoryBudgetOrigin = "set"
    /// Where `bridge.maxSessions` came from, for `--check-config` and the log line at start:
    /// `set`, or how the default was derived from the descriptor limit (``MaxSessionsDefault``).
    public var maxSessionsOrigin = "set"
    /// Where each setting that is not at its default came from.
    public var sources: [SettingKey: SettingSource] = [:]

    public init() {}

    /// Resolves every setting of the table, in its order: the flag if given, else the
    /// environment variable, else the config file's key, else the default; each value is
    /// checked against its row's rule, then applied. An unset `memory-budget` becomes a
    /// quarter of `memoryLimit()`, an unset `max-sessions` what `descriptorHardLimit()`
    /// holds (``MaxSessionsDefault``). Then the settings that go together are checked
    /// (``SettingsChecks``).
    public static func resolve(
        _ sources: SettingSources, memoryLimit: () -> MemoryLimit = { MemoryLimit.current() },
        descriptorHardLimit: () -> Int = { DescriptorLimit.current().hard }
    ) throws(SettingsError) -> DaemonSettings {
        var settings = DaemonSettings()
        for setting in Setting.all {
            guard let (value, source) = try sources.value(of: setting) else { continue }
            try setting.check(value)
            setting.apply(&settings, value)
            settings.sources[setting.key] = source
        }
        if settings.sources[.memoryBudget] == nil {
            let limit = memoryLimit()
            settings.bridge.memoryBudget = limit.defaultBudget
            settings.memoryBudgetOrigin = "a quarter of \(limit.bytes) bytes of \(limit.sourceDescription)"
        }
        if settings.sources[.maxSessions] == nil {
            let derived = MaxSessionsDefault(hardDescriptorLimit: descriptorHardLimit())
            settings.bridge.maxSessions = derived.value
            settings.maxSessionsOrigin = derived.origin
        }
        try SettingsChecks.check(settings)
        return settings
    }

    /// Resolves the settings of a command line: its flags, `environment`, and the config
    /// file named by `--config`, else by `DSBRIDGED_CONFIG`.
    public static func resolve(
        flags: SettingFlags, environment: [String: String] = ProcessInfo.processInfo.environment,
        memoryLimit: () -> MemoryLimit = { MemoryLimit.current() },
        descriptorHardLimit: () -> Int = { DescriptorLimit.current().hard }
    ) throws(SettingsError) -> DaemonSettings {
        let path = flags.config ?? environment[SettingKey.configFileVariable]
        let file = try path.map { path throws(SettingsError) in try ConfigFile.load(path) } ?? [:]
        let sources = SettingSources(flags: flags.values, environment: environment, file: file)
        return try resolve(sources, memoryLimit: memoryLimit, descriptorHardLimit: descriptorHardLimit)
    }
}

// SPDX-License-Identifier: MIT
import ArgumentParser

/// The settings' flags. swift-argument-parser needs one declaration per flag; each takes its
/// name and help from the table (``SettingKey/setting``), and ``value(of:)`` (an exhaustive
/// switch) maps it back, so a row without a flag does not compile.
public struct SettingFlags: ParsableArguments, Sendable {
    public init() {}

    @Option(name: .setting(.host), help: .setting(.host)) var host: String?
    @Option(name: .setting(.port), help: .setting(.port)) var port: Int?
    @Option(name: .setting(.adminHost), help: .setting(.adminHost)) var adminHost: String?
    @Option(name: .setting(.adminPort), help: .setting(.adminPort)) var adminPort: Int?
    @Option(name: .setting(.adminToken), help: .setting(.adminToken)) var adminToken: String?
    @Option(name: .setting(.webRoot), help: .setting(.webRoot)) var webRoot: String?
    @Option(name: .setting(.allowedOrigin), help: .setting(.allowedOrigin)) var allowedOrigin: [String] = []
    @Option(name: .setting(.trustedProxy), help: .setting(.trustedProxy)) var trustedProxy: [String] = []
    @Option(name: .setting(.authToken), help: .setting(.authToken)) var authToken: String?
    @Option(name: .setting(.tlsCert), help: .setting(.tlsCert)) var tlsCert: String?
    @Option(name: .setting(.tlsKey), help: .setting(.tlsKey)) var tlsKey: String?
    @Option(name: .setting(.heartbeatMs), help: .setting(.heartbeatMs)) var heartbeatMs: Int?
    @Option(name: .setting(.graceMs), help: .setting(.graceMs)) var graceMs: Int?
    @Option(name: .setting(.helloTimeoutMs), help: .setting(.helloTimeoutMs)) var helloTimeoutMs: Int?
    @Option(name: .setting(.afterTimeoutMs), help: .setting(.afterTimeoutMs)) var afterTimeoutMs: Int?
    @Option(name: .setting(.drainMs), help: .setting(.drainMs)) var drainMs: Int?
    @Option(name: .setting(.maxMessageBytes), help: .setting(.maxMessageBytes)) var maxMessageBytes: Int?
    @Option(name: .setting(.maxDepth), help: .setting(.maxDepth)) var maxDepth: Int?
    @Option(name: .setting(.maxCallsPerSecond), help: .setting(.maxCallsPerSecond)) var maxCallsPerSecond: Int?
    @Option(name: .setting(.maxHeaderBytes), help: .setting(.maxHeaderBytes)) var maxHeaderBytes: Int?
    @Option(name: .setting(.bodyTimeoutMs), help: .setting(.bodyTimeoutMs)) var bodyTimeoutMs: Int?
    @Option(name: .setting(.maxSessions), help: .setting(.maxSessions)) var maxSessions: Int?
    @Option(name: .setting(.maxSessionsPerAddress), help: .setting(.maxSessionsPerAddress)) var maxSessionsPerAddress: Int?
    @Option(name: .setting(.maxCallsPending), help: .setting(.maxCallsPending)) var maxCallsPending: Int?
    @Option(name: .setting(.maxAsyncCalls), help: .setting(.maxAsyncCalls)) var maxAsyncCalls: Int?
    @Option(name: .setting(.replayMaxMessages), help: .setting(.replayMaxMessages)) var replayMaxMessages: Int?
    @Option(name: .setting(.replayMaxBytes), help: .setting(.replayMaxBytes)) var replayMaxBytes: Int?
    @Option(name: .setting(.memoryBudget), help: .setting(.memoryBudget)) var memoryBudget: Int?
    @Option(name: .setting(.logLevel), help: .setting(.logLevel)) var logLevel: String?
    @Option(name: .setting(.redis), help: .setting(.redis)) var redis: String?
    @Option(name: .setting(.nodeID), help: .setting(.nodeID)) var nodeID: String?
    @Option(name: .setting(.otelEndpoint), help: .setting(.otelEndpoint)) var otelEndpoint: String?
    @Option(name: .setting(.otelProtocol), help: .setting(.otelProtocol)) var otelProtocol: String?
    @Flag(name: .setting(.demo), help: .setting(.demo)) var demo = false
    @Option(name: .setting(.demoTickMs), help: .setting(.demoTickMs)) var demoTickMs: Int?

    /// The config file (`--config`, else `DSBRIDGED_CONFIG`).
    @Option(
        name: .customLong(SettingKey.configFileFlag),
        help:
            "A JSON configuration file whose keys are the flag names; flags, then DSBRIDGED_* environment variables win over it (env \(SettingKey.configFileVariable))."
    )
    public var config: String?

    /// The value the command line gave `key`, `nil` when it gave none (an absent `--demo`
    /// or repeatable flag counts as none, so the environment and the file still apply).
    public func value(of key: SettingKey) -> SettingValue? {
        func text(_ v: String?) -> SettingValue? { v.map(SettingValue.text) }
        func integer(_ v: Int?) -> SettingValue? { v.map(SettingValue.integer) }
        func list(_ v: [String]) -> SettingValue? { v.isEmpty ? nil : .list(v) }
        switch key {
        case .host: return text(host)
        case .port: return integer(port)
        case .adminHost: return text(adminHost)
        case .adminPort: return integer(adminPort)
        case .adminToken: return text(adminToken)
        case .webRoot: return text(webRoot)
        case .allowedOrigin: return list(allowedOrigin)
        case .trustedProxy: return list(trustedProxy)
        case .authToken: return text(authToken)
        case .tlsCert: return text(tlsCert)
        case .tlsKey: return text(tlsKey)
        case .heartbeatMs: return integer(heartbeatMs)
        case .graceMs: return integer(graceMs)
        case .helloTimeoutMs: return integer(helloTimeoutMs)
        case .afterTimeoutMs: return integer(afterTimeoutMs)
        case .drainMs: return integer(drainMs)
        case .maxMessageBytes: return integer(maxMessageBytes)
        case .maxDepth: return integer(maxDepth)
        case .maxCallsPerSecond: return integer(maxCallsPerSecond)
        case .maxHeaderBytes: return integer(maxHeaderBytes)
        case .bodyTimeoutMs: return integer(bodyTimeoutMs)
        case .maxSessions: return integer(maxSessions)
        case .maxSessionsPerAddress: return integer(maxSessionsPerAddress)
        case .maxCallsPending: return integer(maxCallsPending)
        case .maxAsyncCalls: return integer(maxAsyncCalls)
        case .replayMaxMessages: return integer(replayMaxMessages)
        case .replayMaxBytes: return integer(replayMaxBytes)
        case .memoryBudget: return integer(memoryBudget)
        case .logLevel: return text(logLevel)
        case .redis: return text(redis)
        case .nodeID: return text(nodeID)
        case .otelEndpoint: return text(otelEndpoint)
        case .otelProtocol: return text(otelProtocol)
        case .demo: return demo ? .toggle(true) : nil
        case .demoTickMs: return integer(demoTickMs)
        }
    }

    /// Every flag given, by setting.
    public var values: [SettingKey: SettingValue] {
        var values: [SettingKey: SettingValue] = [:]
        for key in SettingKey.allCases { values[key] = value(of: key) }
        return values
    }
}

extension NameSpecification {
    /// The long flag of a setting of the table.
    static func setting(_ key: SettingKey) -> NameSpecification { .customLong(key.rawValue) }
}

extension ArgumentHelp {
    /// The help text of a setting of the table.
    static func setting(_ key: SettingKey) -> ArgumentHelp { ArgumentHelp(key.setting.helpText) }
}

// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeServer
import Foundation
import Logging

/// Why the daemon's settings were refused; the message says what to change.
struct SettingsError: Error, CustomStringConvertible {
    let description: String
}

/// Everything the daemon runs with, from defaults, the `--config` file and flags (flags
/// win over the file). Every value is checked here, at start.
struct DaemonSettings {
    /// The environment variable of a setting: `max-depth` is `DSBRIDGED_MAX_DEPTH`.
    static func environmentVariable(for key: String) -> String {
        "DSBRIDGED_" + key.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    var server = ServerConfiguration()
    var bridge = BridgeConfiguration()
    var demo = false
    var demoTickMs = 1000
    var logLevel = Logger.Level.info
    /// Where `bridge.memoryBudget` came from, for the log line at start.
    var memoryBudgetOrigin = "set"

    /// Precedence: flags, then `DSBRIDGED_*` environment variables (`--max-depth` is
    /// `DSBRIDGED_MAX_DEPTH`), then the `--config` file, then the defaults.
    static func resolve(
        flags: DaemonCommand, environment: [String: String] = ProcessInfo.processInfo.environment,
        memoryLimit: () -> MemoryLimit = { MemoryLimit.current() }
    ) throws(SettingsError) -> DaemonSettings {
        var s = DaemonSettings()
        let configPath = flags.config ?? environment["DSBRIDGED_CONFIG"]
        let file = try configPath.map { path throws(SettingsError) in try ConfigFile.load(path) } ?? [:]
        func value<T>(_ flag: T?, _ key: String, _ read: (JSONValue) -> T?) throws(SettingsError) -> T? {
            if let flag { return flag }
            let variable = environmentVariable(for: key)
            if let text = environment[variable] {
                // An environment value is read as JSON when it parses (numbers, booleans), else as a string.
                let raw = (try? JSONParser.parse(text)) ?? .string(text)
                guard let v = read(raw) ?? read(.string(text)) else {
                    throw SettingsError(description: "environment variable \(variable)=\(text) has the wrong type")
                }
                return v
            }
            guard let raw = file[key] else { return nil }
            guard let v = read(raw) else {
                throw SettingsError(description: "config key \"\(key)\" has the wrong type (\(raw.kindName))")
            }
            return v
        }
        let int: (JSONValue) -> Int? = { $0.integerValue.flatMap { Int(exactly: $0) } }
        let string: (JSONValue) -> String? = { $0.stringValue }

        func positive(_ flag: Int?, _ key: String, _ apply: (Int) -> Void, allowZero: Bool = false) throws(SettingsError) {
            guard let v = try value(flag, key, int) else { return }
            guard v > 0 || (allowZero && v == 0) else {
                throw SettingsError(description: "--\(key) must be \(allowZero ? "0 or more" : "a positive integer"), got \(v)")
            }
            let bound = SettingBounds.upper(key)
            guard v <= bound.value else {
                throw SettingsError(description: "--\(key) must be at most \(bound.value) (\(bound.why)), got \(v)")
            }
            apply(v)
        }
        func port(_ flag: Int?, _ key: String, _ apply: (Int) -> Void) throws(SettingsError) {
            guard let v = try value(flag, key, int) else { return }
            guard (0...65535).contains(v) else { throw SettingsError(description: "--\(key) must be from 0 to 65535, got \(v)") }
            apply(v)
        }

        if let h = try value(flags.host, "host", string) { s.server.host = h }
        try port(flags.port, "port") { s.server.port = $0 }
        if let h = try value(flags.adminHost, "admin-host", string) { s.server.adminHost = h }
        try port(flags.adminPort, "admin-port") { s.server.adminPort = $0 }
        s.server.adminToken = try value(flags.adminToken, "admin-token", string)
        if let w = try value(flags.webRoot, "web-root", string) { s.server.webRoot = w }
        let demoInFile = try value(nil as Bool?, "demo", { $0.boolValue }) ?? false
        s.demo = flags.demo || demoInFile
        try positive(flags.demoTickMs, "demo-tick-ms") { s.demoTickMs = $0 }
        func list(_ flag: [String], _ key: String) throws(SettingsError) -> [String] {
            guard flag.isEmpty else { return flag }
            let variable = environmentVariable(for: key)
            if let text = environment[variable] {
                return text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
            }
            guard let raw = file[key] else { return [] }
            guard let a = raw.arrayValue?.compactMap(\.stringValue), a.count == raw.arrayValue?.count else {
                throw SettingsError(description: "config key \"\(key)\" must be an array of strings")
            }
            return a
        }
        s.server.allowedOrigins = try list(flags.allowedOrigin, "allowed-origin")
        s.server.trustedProxies = try list(flags.trustedProxy, "trusted-proxy")
        for proxy in s.server.trustedProxies where !ServerConfiguration.isIPAddress(proxy) {
            throw SettingsError(description: "--trusted-proxy \(proxy) must be an IPv4 or IPv6 address")
        }
        try positive(flags.graceMs, "grace-ms") { s.bridge.graceMs = $0 }
        try positive(flags.helloTimeoutMs, "hello-timeout-ms") { s.bridge.helloTimeoutMs = $0 }
        try positive(flags.heartbeatMs, "heartbeat-ms") { s.bridge.heartbeatMs = $0 }
        try positive(flags.afterTimeoutMs, "after-timeout-ms") { s.bridge.afterTimeoutMs = $0 }
        try positive(flags.maxMessageBytes, "max-message-bytes") { s.bridge.maxMessageBytes = $0 }
        try positive(flags.drainMs, "drain-ms", { s.server.drainMs = $0 }, allowZero: true)
        s.bridge.authToken = try value(flags.authToken, "auth-token", string)
        s.server.tlsCertificatePath = try value(flags.tlsCert, "tls-cert", string)
        s.server.tlsKeyPath = try value(flags.tlsKey, "tls-key", string)
        if (s.server.tlsCertificatePath == nil) != (s.server.tlsKeyPath == nil) {
            throw SettingsError(description: "--tls-cert and --tls-key go together: give both or neither")
        }
        for path in [s.server.tlsCertificatePath, s.server.tlsKeyPath].compactMap({ $0 }) where !FileManager.default.isReadableFile(atPath: path) {
            throw SettingsError(description: "cannot read TLS file \(path)")
        }
        try positive(flags.maxSessions, "max-sessions") { s.bridge.maxSessions = $0 }
        try positive(flags.maxSessionsPerAddress, "max-sessions-per-address") { s.bridge.maxSessionsPerAddress = $0 }
        try positive(flags.maxCallsPending, "max-calls-pending") { s.bridge.maxCallsPending = $0 }
        try positive(flags.maxAsyncCalls, "max-async-calls") { s.bridge.maxAsyncCalls = $0 }
        try positive(flags.maxDepth, "max-depth") { s.bridge.maxDepth = $0 }
        try positive(flags.bodyTimeoutMs, "body-timeout-ms") { s.server.bodyTimeoutMs = $0 }
        try positive(flags.maxCallsPerSecond, "max-calls-per-second", { s.bridge.maxCallsPerSecond = $0 }, allowZero: true)
        if let v = try value(flags.maxHeaderBytes, "max-header-bytes", int) {
            guard (1024...65535).contains(v) else {
                throw SettingsError(description: "--max-header-bytes must be from 1024 to 65535, got \(v)")
            }
            s.server.maxHeaderBytes = v
        }
        try positive(flags.replayMaxMessages, "replay-max-messages") { s.bridge.replayMaxMessages = $0 }
        try positive(flags.replayMaxBytes, "replay-max-bytes") { s.bridge.replayMaxBytes = $0 }
        var budgetSet = false
        try positive(flags.memoryBudget, "memory-budget") {
            s.bridge.memoryBudget = $0
            budgetSet = true
        }
        if !budgetSet {
            let limit = memoryLimit()
            s.bridge.memoryBudget = limit.defaultBudget
            s.memoryBudgetOrigin = "a quarter of \(limit.bytes) bytes of \(limit.sourceDescription)"
        }
        if let level = try value(flags.logLevel, "log-level", string) {
            guard let l = Logger.Level(rawValue: level) else {
                throw SettingsError(description: "--log-level must be one of trace, debug, info, notice, warning, error, critical; got \(level)")
            }
            s.logLevel = l
        }
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: s.server.webRoot, isDirectory: &isDirectory) || !isDirectory.boolValue {
            throw SettingsError(description: "--web-root \(s.server.webRoot) is not a directory (relative paths start at \(FileManager.default.currentDirectoryPath))")
        }
        if s.server.adminToken == "" { throw SettingsError(description: "--admin-token must not be empty") }
        if s.bridge.authToken == "" { throw SettingsError(description: "--auth-token must not be empty") }
        for origin in s.server.allowedOrigins where !(origin.hasPrefix("http://") || origin.hasPrefix("https://")) {
            throw SettingsError(description: "--allowed-origin \(origin) must look like http(s)://host[:port]")
        }
        return s
    }
}

/// The `--config` file: one JSON object whose keys are the flag names.
enum ConfigFile {
    static func load(_ path: String) throws(SettingsError) -> JSONObject {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SettingsError(description: "cannot read config file \(path)")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse([UInt8](data))
        } catch {
            throw SettingsError(description: "config file \(path) is not JSON: \(error)")
        }
        guard case .object(let members) = value else {
            throw SettingsError(description: "config file \(path) must hold one JSON object")
        }
        let known: Set<String> = [
            "host", "port", "admin-host", "admin-port", "admin-token", "web-root", "demo", "demo-tick-ms",
            "allowed-origin", "trusted-proxy", "grace-ms", "hello-timeout-ms", "heartbeat-ms", "after-timeout-ms",
            "max-message-bytes", "drain-ms", "auth-token", "tls-cert", "tls-key", "max-sessions", "max-sessions-per-address",
            "max-calls-pending", "max-async-calls", "max-depth", "max-calls-per-second", "max-header-bytes", "body-timeout-ms", "replay-max-messages", "replay-max-bytes", "memory-budget", "log-level",
        ]
        for key in members.keys where !known.contains(key) {
            throw SettingsError(description: "config file \(path): unknown key \"\(key)\"")
        }
        return members
    }
}

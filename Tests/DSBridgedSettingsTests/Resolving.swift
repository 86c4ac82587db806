// SPDX-License-Identifier: MIT
import DSBridgeServer
import DSBridgedSettings
import Foundation

/// Resolves settings the way the daemon does, from a command line, an environment and an
/// optional config file's text, without launching anything.
enum Resolving {
    /// An existing folder, so the web-root check passes wherever the tests run.
    static let webRoot: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dsbridged-settings-web-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.path
    }()

    /// A machine with 8 GiB and no cgroup limit.
    static let memory = MemoryLimit(bytes: 8 << 30, source: .physicalMemory)

    /// A hard descriptor limit that holds more than the most sessions a default allows
    /// (systemd's default hard limit).
    static let roomyHardLimit = 524_288

    /// `flags` as typed after `dsbridged`, `environment` as the whole process environment
    /// (plus `DSBRIDGED_WEB_ROOT` unless it names one), `file` as the `--config` file's text,
    /// `hardLimit` as the process's hard descriptor limit.
    static func resolve(
        _ flags: [String] = [], environment: [String: String] = [:], file: String? = nil, hardLimit: Int = roomyHardLimit
    ) throws -> DaemonSettings {
        var arguments = flags
        var path: URL?
        if let file {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("dsbridged-settings-\(UUID().uuidString).json")
            try Data(file.utf8).write(to: url)
            path = url
            arguments += ["--config", url.path]
        }
        defer { if let path { try? FileManager.default.removeItem(at: path) } }
        var environment = environment
        if environment["DSBRIDGED_WEB_ROOT"] == nil { environment["DSBRIDGED_WEB_ROOT"] = webRoot }
        let parsed = try SettingFlags.parse(arguments)
        return try DaemonSettings.resolve(flags: parsed, environment: environment, memoryLimit: { memory }, descriptorHardLimit: { hardLimit })
    }

    /// The message of the error `resolve` throws, or `nil` when it resolves.
    static func refusal(_ flags: [String] = [], environment: [String: String] = [:], file: String? = nil) -> String? {
        do {
            _ = try resolve(flags, environment: environment, file: file)
            return nil
        } catch let error as SettingsError {
            return error.description
        } catch {
            return "\(error)"
        }
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import OrderedCollections

/// The three places a setting is read from, highest precedence first: flags, `DSBRIDGED_*`
/// environment variables, the config file. What none of them holds keeps its default.
public struct SettingSources: Sendable {
    /// The flags given on the command line.
    public var flags: [SettingKey: SettingValue]
    /// The process environment (only `DSBRIDGED_*` variables are read).
    public var environment: [String: String]
    /// The config file's object (``ConfigFile/load(_:)`` has checked its keys).
    public var file: JSONObject

    public init(flags: [SettingKey: SettingValue] = [:], environment: [String: String] = [:], file: JSONObject = [:]) {
        self.flags = flags
        self.environment = environment
        self.file = file
    }

    /// The value of `setting` from the first source that has it, with that source; `nil`
    /// when none has it. Throws when the environment or the file holds the wrong type.
    func value(of setting: Setting) throws(SettingsError) -> (SettingValue, SettingSource)? {
        if let value = flags[setting.key] { return (value, .flag) }
        let variable = setting.key.environmentVariable
        if let text = environment[variable] {
            guard let value = setting.kind.read(environment: text) else {
                throw SettingsError(description: "environment variable \(variable)=\(text) has the wrong type; expected \(setting.kind.expectedDescription)")
            }
            return (value, .environment)
        }
        guard let raw = file[setting.key.configKey] else { return nil }
        guard let value = setting.kind.read(file: raw) else {
            if case .list = setting.kind {
                throw SettingsError(description: "config key \"\(setting.key.configKey)\" must be an array of strings")
            }
            throw SettingsError(description: "config key \"\(setting.key.configKey)\" has the wrong type (\(raw.kindName)); expected \(setting.kind.expectedDescription)")
        }
        return (value, .file)
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import OrderedCollections

/// The three places a setting is read from, highest precedence first: flags, `DSBRIDGED_*`
/// environment variables, the config file. What none of them holds keeps its default.
///
/// The layering is written here rather than taken from apple/swift-configuration, whose
/// providers would change what operators rely on: its synchronous readers turn a value of
/// the wrong type into the default instead of an error (`DSBRIDGED_MAX_DEPTH=deep` would run
/// with 128), its environment lists split on one separator (ours on spaces or commas), its
/// booleans accept `yes`/`1` and its JSON files coerce `true` to 1, and it cannot list a
/// file's keys to refuse an unknown one. Keeping all that would mean custom providers for
/// every source, around a first-match loop that is the few lines of ``value(of:)``.
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
            throw SettingsError(
                description: "config key \"\(setting.key.configKey)\" has the wrong type (\(raw.kindName)); expected \(setting.kind.expectedDescription)")
        }
        return (value, .file)
    }
}

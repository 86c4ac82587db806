// SPDX-License-Identifier: MIT
import DSBridge
import Foundation

/// The `--config` file: one JSON object whose keys are the flag names without `--`
/// (``SettingKey/configKey``). An unknown key is refused, so a typo does not go unnoticed.
public enum ConfigFile {
    /// Reads and checks the file at `path`.
    public static func load(_ path: String) throws(SettingsError) -> JSONObject {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SettingsError(description: "cannot read config file \(path)")
        }
        return try parse([UInt8](data), path: path)
    }

    /// Checks the bytes of a config file; `path` names it in messages.
    public static func parse(_ bytes: [UInt8], path: String) throws(SettingsError) -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw SettingsError(description: "config file \(path) is not JSON: \(error)")
        }
        guard case .object(let members) = value else {
            throw SettingsError(description: "config file \(path) must hold one JSON object")
        }
        for key in members.keys where SettingKey(rawValue: key) == nil {
            throw SettingsError(description: "config file \(path): unknown key \"\(key)\"")
        }
        return members
    }
}

// SPDX-License-Identifier: MIT
import Logging

/// The kinds of row the table is written with: each ties a key to the property of
/// ``DaemonSettings`` its value is applied to, which also gives its default and how
/// `--check-config` shows it.
extension Setting {
    /// Every row, in the order of ``SettingKey``.
    public static let all: [Setting] = SettingKey.allCases.map(\.setting)

    /// A string with a default.
    static func text(
        _ key: SettingKey, _ path: WritableKeyPath<DaemonSettings, String> & Sendable, rule: TextRule? = nil, help: String
    ) -> Setting {
        Setting(
            key: key, kind: .text(rule), help: help,
            apply: { s, value in if case .text(let v) = value { s[keyPath: path] = v } },
            show: { $0[keyPath: path] })
    }

    /// A string that is unset by default; a secret is shown as `(set)`, never its value.
    static func optionalText(
        _ key: SettingKey, _ path: WritableKeyPath<DaemonSettings, String?> & Sendable,
        secret: Bool = false, rule: TextRule? = nil, help: String
    ) -> Setting {
        Setting(
            key: key, kind: .text(rule), help: help, defaultDescription: "none",
            apply: { s, value in if case .text(let v) = value { s[keyPath: path] = v } },
            show: { s in
                guard let v = s[keyPath: path] else { return "(none)" }
                return secret ? "(set)" : v
            })
    }

    /// An integer within `bounds`.
    static func integer(
        _ key: SettingKey, _ path: WritableKeyPath<DaemonSettings, Int> & Sendable, _ bounds: IntegerBounds,
        help: String, defaultDescription: String? = nil,
        show: (@Sendable (DaemonSettings) -> String)? = nil
    ) -> Setting {
        Setting(
            key: key, kind: .integer(bounds), help: help, defaultDescription: defaultDescription,
            apply: { s, value in if case .integer(let v) = value { s[keyPath: path] = v } },
            show: show ?? { "\($0[keyPath: path])" })
    }

    /// On or off, off by default.
    static func toggle(
        _ key: SettingKey, _ path: WritableKeyPath<DaemonSettings, Bool> & Sendable, help: String
    ) -> Setting {
        Setting(
            key: key, kind: .toggle, help: help, defaultDescription: "off",
            apply: { s, value in if case .toggle(let v) = value { s[keyPath: path] = v } },
            show: { "\($0[keyPath: path])" })
    }

    /// Strings, none by default; `whenEmpty` is what `--check-config` shows for none.
    static func list(
        _ key: SettingKey, _ path: WritableKeyPath<DaemonSettings, [String]> & Sendable,
        rule: TextRule?, whenEmpty: String, help: String
    ) -> Setting {
        Setting(
            key: key, kind: .list(rule), help: help, defaultDescription: "none",
            apply: { s, value in if case .list(let v) = value { s[keyPath: path] = v } },
            show: { s in s[keyPath: path].isEmpty ? whenEmpty : s[keyPath: path].joined(separator: " ") })
    }

    /// A swift-log level by name.
    static func logLevel(
        _ key: SettingKey, _ path: WritableKeyPath<DaemonSettings, Logger.Level> & Sendable, help: String
    ) -> Setting {
        Setting(
            key: key, kind: .choice(Logger.Level.allCases.map(\.rawValue)), help: help,
            apply: { s, value in
                if case .text(let v) = value, let level = Logger.Level(rawValue: v) { s[keyPath: path] = level }
            },
            show: { $0[keyPath: path].rawValue })
    }
}

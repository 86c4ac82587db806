// SPDX-License-Identifier: MIT
import Foundation

/// One row of the settings table (``SettingKey/setting``): what a setting holds, the values
/// it accepts, its help text, and how its value is applied to ``DaemonSettings``. The flag,
/// the environment variable and the config key come from its ``key``.
public struct Setting: Sendable {
    /// What a setting holds, and so how it is read from each source.
    public enum Kind: Sendable {
        /// A string, optionally with a rule (`admin-token` must not be empty).
        case text(TextRule?)
        /// An integer within bounds.
        case integer(IntegerBounds)
        /// On or off: a flag without value, `true`/`false` in the environment and the file.
        case toggle
        /// Strings: a repeatable flag, words separated by spaces or commas in the environment,
        /// an array of strings in the file. The rule applies to each.
        case list(TextRule?)
        /// One word of a fixed list.
        case choice([String])
    }

    /// The setting's name, which gives its flag, environment variable and config key.
    public let key: SettingKey
    /// What it holds and accepts.
    public let kind: Kind
    /// What it does, one or two sentences of plain text (shown by `--help` and in docs/CONFIGURATION.md).
    public let help: String
    /// The default in words (`128`, `none`, `a quarter of …`).
    public let defaultDescription: String
    let apply: @Sendable (inout DaemonSettings, SettingValue) -> Void
    let show: @Sendable (DaemonSettings) -> String

    init(
        key: SettingKey, kind: Kind, help: String, defaultDescription: String? = nil,
        apply: @escaping @Sendable (inout DaemonSettings, SettingValue) -> Void,
        show: @escaping @Sendable (DaemonSettings) -> String
    ) {
        self.key = key
        self.kind = kind
        self.help = help
        self.defaultDescription = defaultDescription ?? show(DaemonSettings())
        self.apply = apply
        self.show = show
    }

    /// The effective value in `settings` as `--check-config` prints it (secrets as `(set)`).
    public func shown(in settings: DaemonSettings) -> String { show(settings) }

    /// The accepted values in words (`1 to 1000 (…)`, `one of trace, debug, …`), or `nil`
    /// when any value of the kind is accepted.
    public var allowedValues: String? {
        switch kind {
        case .integer(let bounds): return bounds.description
        case .choice(let words): return "one of " + words.joined(separator: ", ")
        case .text(let rule?), .list(let rule?): return rule.summary
        case .text(nil), .list(nil), .toggle: return nil
        }
    }

    /// `--help`'s text: ``help``, the default, the accepted values and the environment variable.
    public var helpText: String {
        var parts = ["default: \(defaultDescription)"]
        if let allowedValues { parts.append(allowedValues) }
        parts.append("env \(key.environmentVariable)")
        return help + " (" + parts.joined(separator: "; ") + ")"
    }

    /// Throws unless `value` is one this setting accepts; the message names the flag.
    public func check(_ value: SettingValue) throws(SettingsError) {
        switch (kind, value) {
        case (.integer(let bounds), .integer(let v)):
            try bounds.check(v, flag: key.flag)
        case (.text(let rule?), .text(let v)):
            try rule.check(v, flag: key.flag)
        case (.list(let rule?), .list(let values)):
            for v in values { try rule.check(v, flag: key.flag) }
        case (.choice(let words), .text(let v)):
            guard words.contains(v) else {
                throw SettingsError(description: "\(key.flag) must be one of \(words.joined(separator: ", ")); got \(v)")
            }
        default:
            return
        }
    }
}

// SPDX-License-Identifier: MIT
import Foundation

/// What `--check-config` prints: every effective setting as `key value`, in the table's
/// order. Secrets are shown as `(set)`, never their value.
public enum SettingsSummary {
    /// One aligned line per setting. `derived`: what an unset setting takes in its place,
    /// shown as `VALUE (default)` instead of `(none)` (the node id, made from the host name).
    public static func lines(of settings: DaemonSettings, derived: [SettingKey: String] = [:]) -> [String] {
        let width = SettingKey.allCases.map(\.rawValue.count).max() ?? 0
        return Setting.all.map { setting in
            var shown = setting.shown(in: settings)
            if shown == "(none)", let value = derived[setting.key] { shown = value + " (default)" }
            return setting.key.rawValue.padding(toLength: width + 2, withPad: " ", startingAt: 0) + shown
        }
    }
}

// SPDX-License-Identifier: MIT
import Foundation

/// What `--check-config` prints: every effective setting as `key value`, in the table's
/// order. Secrets are shown as `(set)`, never their value.
public enum SettingsSummary {
    /// One aligned line per setting.
    public static func lines(of settings: DaemonSettings) -> [String] {
        let width = SettingKey.allCases.map(\.rawValue.count).max() ?? 0
        return Setting.all.map { setting in
            setting.key.rawValue.padding(toLength: width + 2, withPad: " ", startingAt: 0) + setting.shown(in: settings)
        }
    }
}

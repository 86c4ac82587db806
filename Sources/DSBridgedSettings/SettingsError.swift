// SPDX-License-Identifier: MIT

/// Why the daemon's settings were refused. The message names the setting (as its flag,
/// environment variable or config key, whichever held the bad value) and says what to change.
public struct SettingsError: Error, CustomStringConvertible, Equatable {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

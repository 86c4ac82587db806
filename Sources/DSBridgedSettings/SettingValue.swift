// SPDX-License-Identifier: MIT

/// A setting's value as read from a flag, the environment or the config file, before it is
/// checked against its ``Setting/Kind`` and applied.
public enum SettingValue: Sendable, Equatable {
    /// The value of a ``Setting/Kind/text(_:)`` or ``Setting/Kind/choice(_:)`` setting.
    case text(String)
    /// The value of an ``Setting/Kind/integer(_:)`` setting.
    case integer(Int)
    /// The value of a ``Setting/Kind/toggle`` setting.
    case toggle(Bool)
    /// The values of a ``Setting/Kind/list(_:)`` setting.
    case list([String])
}

/// Where a setting's effective value came from; a setting absent from ``DaemonSettings/sources``
/// has its default.
public enum SettingSource: String, Sendable, Equatable {
    /// A command-line flag.
    case flag
    /// A `DSBRIDGED_*` environment variable.
    case environment
    /// A key of the `--config` file.
    case file
}

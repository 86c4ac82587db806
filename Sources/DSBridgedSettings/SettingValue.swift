// SPDX-License-Identifier: MIT

/// A setting's value as read from a flag, the environment or the config file, before it is
/// checked against its ``Setting/Kind`` and applied.
public enum SettingValue: Sendable, Equatable {
    case text(String)
    case integer(Int)
    case toggle(Bool)
    case list([String])
}

/// Where a setting's effective value came from; a setting absent from ``DaemonSettings/sources``
/// has its default.
public enum SettingSource: String, Sendable, Equatable {
    case flag
    case environment
    case file
}

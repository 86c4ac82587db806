// SPDX-License-Identifier: MIT
import DSBridgeServer

/// `--max-sessions`' default when none is given: as many sessions as the descriptor hard
/// limit holds with the daemon's reserve and its room for HTTP requests left free
/// (``DescriptorLimit/sessionsFitting(hard:)``, PROTOCOL.md 2.6), at most ``ceiling``. A
/// fixed default above the limit would only earn a warning at every start, about a number
/// nobody chose; a derived one always fits. Pure arithmetic, tested on its own.
public struct MaxSessionsDefault: Sendable, Equatable {
    /// The most sessions a default allows: the soft descriptor limit follows `--max-sessions`,
    /// and libwebsockets walks its whole descriptor table on each close of a connection it
    /// holds (TLS, admin), so a default does not grow with a hard limit of a million.
    public static let ceiling = 100_000

    /// The sessions allowed.
    public let value: Int
    /// How it was derived, in words for `--check-config` and the start log.
    public let origin: String

    /// The default for a process whose hard `RLIMIT_NOFILE` is `hard`.
    public init(hardDescriptorLimit hard: Int) {
        let fitting = DescriptorLimit.sessionsFitting(hard: hard)
        if fitting >= Self.ceiling {
            value = Self.ceiling
            origin = "default: the most a default allows; the descriptor hard limit \(hard) holds more"
        } else {
            value = fitting
            origin = "default: what the descriptor hard limit \(hard) holds, \(hard - fitting) kept for the admin listener and HTTP"
        }
    }

    /// The default in words, for `--help` and docs/CONFIGURATION.md.
    public static let description =
        "the descriptor hard limit less \(DescriptorLimit.reserve + DescriptorLimit.httpAllowance) kept for the admin listener and HTTP, at most \(ceiling)"
}

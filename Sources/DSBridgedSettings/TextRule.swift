// SPDX-License-Identifier: MIT
import DSBridgeServer

/// A rule a text setting (or each element of a list setting) must follow, with the words
/// that tell a person what to change.
public struct TextRule: Sendable {
    /// What the value must be, completing "--flag [value] …": `must not be empty`.
    public let requirement: String
    /// The accepted values in a few words, for help texts: `not empty`.
    public let summary: String
    /// Whether the refused value is quoted in the message (never for a secret).
    let showsValue: Bool
    let accepts: @Sendable (String) -> Bool

    /// Throws unless `value` follows the rule; the message names `flag`.
    public func check(_ value: String, flag: String) throws(SettingsError) {
        guard !accepts(value) else { return }
        throw SettingsError(description: showsValue ? "\(flag) \(value) \(requirement)" : "\(flag) \(requirement)")
    }

    /// Anything but the empty string (tokens: an empty one would be a secret anyone knows).
    public static let notEmpty = TextRule(requirement: "must not be empty", summary: "not empty", showsValue: false) { !$0.isEmpty }

    /// An origin: `http://` or `https://` and a host.
    public static let origin = TextRule(requirement: "must look like http(s)://host[:port]", summary: "http(s)://host[:port]", showsValue: true) {
        $0.hasPrefix("http://") || $0.hasPrefix("https://")
    }

    /// An `http://` or `https://` URL with a host.
    public static let httpURL = TextRule(requirement: "must look like http(s)://host[:port][/path]", summary: "http(s)://host[:port][/path]", showsValue: true)
    {
        ($0.hasPrefix("http://") && $0.count > 7) || ($0.hasPrefix("https://") && $0.count > 8)
    }

    /// An OTLP/HTTP encoding.
    public static let otlpProtocol = TextRule(requirement: "must be http/protobuf or http/json", summary: "http/protobuf or http/json", showsValue: true) {
        $0 == "http/protobuf" || $0 == "http/json"
    }

    /// A literal IPv4 or IPv6 address.
    public static let ipAddress = TextRule(requirement: "must be an IPv4 or IPv6 address", summary: "IPv4 or IPv6 address", showsValue: true) {
        ServerConfiguration.isIPAddress($0)
    }
}

// SPDX-License-Identifier: MIT
import Foundation

/// The address a request is counted and logged under. Normally the TCP peer; when the peer
/// is a configured trusted proxy (`--trusted-proxy`), the last address of its
/// `X-Forwarded-For` header instead, i.e. the one that proxy saw. Addresses a client wrote
/// into the header itself come earlier in the list and are never used.
struct ClientAddress: Sendable {
    /// Peers whose `X-Forwarded-For` is believed (exact addresses, e.g. `127.0.0.1`).
    let trustedProxies: Set<String>

    /// The address of a request from `peer` with this `X-Forwarded-For` (read only when
    /// `peer` is a trusted proxy).
    func resolve(peer: String, forwardedFor: @autoclosure () -> String?) -> String {
        guard !trustedProxies.isEmpty, trustedProxies.contains(peer), let forwardedFor = forwardedFor() else { return peer }
        // The last entry, even an empty one ("1.2.3.4," names no client).
        guard let last = forwardedFor.split(separator: ",", omittingEmptySubsequences: false).last else { return peer }
        let candidate = String(last).trimmingCharacters(in: .whitespaces)
        return Self.isIPAddress(candidate) ? candidate : peer
    }

    /// Whether `text` is a literal IPv4 or IPv6 address.
    static func isIPAddress(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count < 64 else { return false }
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}

// SPDX-License-Identifier: MIT

/// The reason text of a WebSocket close frame: at most 123 bytes of UTF-8 (RFC 6455 5.5:
/// a control frame carries at most 125 bytes, 2 of them the code), cut between characters
/// so the peer never sees half a character (browsers fail a connection whose close reason is
/// not valid UTF-8).
public enum CloseReason {
    /// The most bytes a close reason may have.
    public static let maxBytes = 123

    /// `reason`, cut at a character boundary to at most `maxBytes` bytes of UTF-8.
    public static func clipped(_ reason: String, maxBytes: Int = CloseReason.maxBytes) -> String {
        if reason.utf8.count <= maxBytes { return reason }
        var result = ""
        var bytes = 0
        for scalar in reason.unicodeScalars {
            let size = String(scalar).utf8.count
            if bytes + size > maxBytes { break }
            result.unicodeScalars.append(scalar)
            bytes += size
        }
        return result
    }
}

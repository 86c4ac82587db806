// SPDX-License-Identifier: MIT
import Foundation

/// Times as the admin API writes them: RFC 3339 in UTC with `Z` (PROTOCOL.md 6).
enum RFC3339 {
    static func format(milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}

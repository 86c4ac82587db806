// SPDX-License-Identifier: MIT

/// Why a reply could not be sent.
public enum BridgeComponentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reply's `jsonData` is not the text of a JSON object.
    case dataNotAJSONObject(String)
    /// The reply alone is larger than the session's replay bound (`replayMaxBytes`).
    case tooLarge(bytes: Int)

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case .dataNotAJSONObject(let text):
            return "a reply's data must be the text of a JSON object (the page reads its members), got \(text.prefix(80))"
        case .tooLarge(let bytes):
            return "the reply is \(bytes) bytes, more than the session's replayMaxBytes: send less data"
        }
    }
}

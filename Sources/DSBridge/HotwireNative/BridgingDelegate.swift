// SPDX-License-Identifier: MIT

/// What a ``BridgeComponent`` replies through: the page session's bridge (hotwire-native-ios'
/// `BridgingDelegate`). The server makes one per page session; a component holds it weakly.
public protocol BridgingDelegate: AnyObject, Sendable {
    /// Sends `message` to the page as a reply to the page's message with the same id.
    /// - Returns: `true` once the reply is on the session's channel (it reaches the page once,
    ///   in order, across reconnects), `false` when the session has ended.
    func reply(with message: Message) async throws -> Bool
}

/// The page a component serves: dsbridged's stand-in for the app's view controller
/// (hotwire-native-ios' `BridgeDestination`).
public final class BridgeDestination: Sendable {
    /// The page session; `nil` once it has ended.
    public weak let session: BridgeSession?

    public init(session: BridgeSession?) {
        self.session = session
    }
}

/// Why a reply could not be sent.
public enum BridgeComponentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The component has no delegate (its page session is gone).
    case delegateNil
    /// The reply's `jsonData` is not the text of a JSON object.
    case dataNotAJSONObject(String)
    /// The reply alone is larger than the session's replay bound (`replayMaxBytes`).
    case tooLarge(bytes: Int)

    public var description: String {
        switch self {
        case .delegateNil: return "the component has no delegate: its page session has ended"
        case .dataNotAJSONObject(let text):
            return "a reply's data must be the text of a JSON object (the page reads its members), got \(text.prefix(80))"
        case .tooLarge(let bytes):
            return "the reply is \(bytes) bytes, more than the session's replayMaxBytes: send less data"
        }
    }
}

// SPDX-License-Identifier: MIT

/// What a ``BridgeComponent`` replies through: the page session's bridge (hotwire-native-ios'
/// `BridgingDelegate`). The server makes one per page session; a component holds it weakly.
public protocol BridgingDelegate: AnyObject, Sendable {
    /// Sends `message` to the page as a reply to the page's message with the same id.
    /// - Returns: `true` once the reply is on the session's channel (it reaches the page once,
    ///   in order, across reconnects), `false` when the session has ended.
    func reply(with message: Message) async throws -> Bool
}

// SPDX-License-Identifier: MIT
import Synchronization

/// The ``BridgingDelegate`` of one page session: replies go to the page as native-initiated
/// calls of `_hotwire.reply` (PROTOCOL.md 9.4), so they share the channel's order, replay and
/// exactly-once delivery; like every such call they wait until the page is ready.
final class PageReplies: BridgingDelegate {
    /// The page method replies call.
    static let method = "_hotwire.reply"

    weak let session: BridgeSession?

    init(session: BridgeSession) {
        self.session = session
    }

    func reply(with message: Message) async throws -> Bool {
        let value = try message.wireValue()
        guard let session else { return false }
        // A call that cannot start fails its handler before `callJavaScript` returns.
        let refused = Mutex<NativeCallError?>(nil)
        let started = session.callJavaScript(Self.method, args: [value]) { event in
            if case .failed(let error) = event { refused.withLock { $0 = $0 ?? error } }
        }
        if started != nil { return true }
        if case .tooLarge(let bytes)? = refused.withLock({ $0 }) { throw BridgeComponentError.tooLarge(bytes: bytes) }
        return false
    }
}

// SPDX-License-Identifier: MIT
import DSBridge

/// An invoke a session that moved away had made but not journaled (docs/CLUSTER.md, failure
/// cases): what the new owner needs to make it again (method, arguments) and where its
/// answers go (the origin recorded with it). Pure: read from the message's bytes.
struct PassedInvoke: Equatable {
    /// How long the owner waits for the page's answer to a passed invoke; the node that
    /// made the call keeps its own deadline.
    static let timeoutMs = 300_000

    let method: String
    let args: [JSONValue]
    let origin: String

    /// `nil` when `message` is not an invoke with a callbackId, a method and arguments, or no
    /// origin is recorded for it.
    init?(_ message: SequencedMessage, origin: (Int64) -> String?) {
        guard message.kind == .invoke, case .object(let o)? = try? JSONParser.parse(message.bytes(seq: 0)),
            let callbackId = o["callbackId"]?.integerValue, let method = o["method"]?.stringValue,
            let origin = origin(callbackId)
        else { return nil }
        self.method = method
        self.args = o["args"]?.arrayValue ?? []
        self.origin = origin
    }

    init?(_ message: SequencedMessage, of session: BridgeSession) {
        self.init(message, origin: { session.nativeCallOrigin($0) })
    }
}

// SPDX-License-Identifier: MIT

/// Where the answers of a native call made for another node go: the text `NODE|REF` of a
/// `call` message's `origin` (docs/CLUSTER.md, "Node messages"), read once.
package struct CallOrigin: Sendable, Equatable {
    /// The node that made the call.
    package let node: String
    /// The call's number on that node.
    package let ref: Int64
}

extension CallOrigin {
    /// Reads `NODE|REF` (the node is what comes before the first `|`); `nil` when `text`
    /// has no `|`, nothing before it or no number after it.
    package init?(parsing text: String) {
        let utf8 = text.utf8
        guard let bar = utf8.firstIndex(of: UInt8(ascii: "|")), bar != utf8.startIndex,
            let ref = Int64(text[utf8.index(after: bar)...])
        else { return nil }
        node = String(text[..<bar])
        self.ref = ref
    }
}

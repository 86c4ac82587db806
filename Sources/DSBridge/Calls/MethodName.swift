// SPDX-License-Identifier: MIT

/// A DSBridge method name split at its last dot: `a.b.c` is namespace `a.b`, method `c`
/// (PROTOCOL.md 2.2).
package struct MethodName: Sendable, Hashable, CustomStringConvertible {
    /// Everything before the last dot; `""` when there is no dot.
    package let namespace: String
    /// Everything after the last dot.
    package let name: String

    /// The namespace of the internal API (`_dsb.dsinit`, ...).
    package static let internalNamespace = "_dsb"

    /// Namespaces the bridge owns (PROTOCOL.md 5, 9): `_dsb`, `_wvjb`, `_webkit`, `_page` and
    /// `_hotwire`. Interfaces cannot be registered under them or under names inside them
    /// (`_page.x`); page calls into them reach only the internal methods.
    package static let reservedNamespaces: Set<String> = [
        internalNamespace, webViewJavascriptBridgeNamespace, "_webkit", "_page", hotwireNamespace,
    ]

    /// The namespace of the Hotwire Native bridge's internal methods (PROTOCOL.md 9.4).
    package static let hotwireNamespace = "_hotwire"

    /// The namespace of WebViewJavascriptBridge's internal methods: `_wvjb.call` (page to
    /// native) and `_wvjb.handle` (native to page), PROTOCOL.md 9.1.
    package static let webViewJavascriptBridgeNamespace = "_wvjb"

    /// Whether `namespace` is reserved or inside a reserved one (`_webkit`, `_webkit.a`).
    package static func isReserved(namespace: String) -> Bool {
        // Every reserved namespace starts with "_": an application's name is out at its first
        // byte, without walking the set (each comparison cost a retain and a release).
        guard namespace.utf8.first == UInt8(ascii: "_") else { return false }
        let head = namespace.utf8.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false).first
        guard let head else { return false }
        return reservedNamespaces.contains { $0.utf8.elementsEqual(head) }
    }

    /// Resolves `raw`; `nil` when it is empty, starts or ends with a dot, contains `..` or
    /// whitespace (such a call is `methodNotFound`). Names are not trimmed.
    package init?(_ raw: String) {
        let utf8 = raw.utf8
        guard let first = utf8.first, let last = utf8.last, first != UInt8(ascii: "."), last != UInt8(ascii: ".")
        else { return nil }
        var lastDot: String.Index?
        var previousWasDot = false
        var isASCII = true
        for i in utf8.indices {
            let c = utf8[i]
            if c == UInt8(ascii: ".") {
                if previousWasDot { return nil }
                previousWasDot = true
                lastDot = i
            } else {
                previousWasDot = false
                if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0B || c == 0x0C { return nil }
                if c >= 0x80 { isASCII = false }
            }
        }
        // The ASCII whitespace was refused above; other whitespace (U+0085, U+00A0, U+2028,
        // ...) is outside ASCII, so only a name with non-ASCII bytes needs the Unicode check.
        if !isASCII, raw.unicodeScalars.contains(where: { $0.properties.isWhitespace }) { return nil }
        if let dot = lastDot {
            // Split on the bytes: Character-based slicing would step over a dot merged into
            // a grapheme cluster ("a.\u{301}b", "\u{600}.b") and split at the wrong place.
            namespace = String(decoding: utf8[..<dot], as: UTF8.self)
            name = String(decoding: utf8[utf8.index(after: dot)...], as: UTF8.self)
        } else {
            namespace = ""
            name = raw
        }
    }

    package var description: String { namespace.isEmpty ? name : namespace + "." + name }

    /// True for `_dsb.*`.
    package var isInternal: Bool { namespace == Self.internalNamespace }

    /// True when the namespace is `_webkit` (byte for byte): `_webkit.postMessage`.
    var isScriptMessage: Bool { namespace.utf8.elementsEqual("_webkit".utf8) }

    /// True when the namespace is `_wvjb` (byte for byte): `_wvjb.call`.
    var isWebViewJavascriptBridge: Bool { namespace.utf8.elementsEqual(Self.webViewJavascriptBridgeNamespace.utf8) }

    /// True when the namespace is `_hotwire` (byte for byte).
    var isHotwire: Bool { namespace.utf8.elementsEqual(Self.hotwireNamespace.utf8) }

    /// True for every name in a reserved namespace (``reservedNamespaces``).
    var isReserved: Bool { Self.isReserved(namespace: namespace) }
}

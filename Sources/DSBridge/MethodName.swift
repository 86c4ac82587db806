// SPDX-License-Identifier: MIT

/// A DSBridge method name split at its last dot: `a.b.c` is namespace `a.b`, method `c`
/// (PROTOCOL.md 2.2).
public struct MethodName: Sendable, Hashable, CustomStringConvertible {
    /// Everything before the last dot; `""` when there is no dot.
    public let namespace: String
    /// Everything after the last dot.
    public let name: String

    /// The namespace of the internal API (`_dsb.dsinit`, ...).
    public static let internalNamespace = "_dsb"

    /// The namespace of WebViewJavascriptBridge's internal method `_wvjb.call` (PROTOCOL.md 9.1).
    public static let webViewJavascriptBridgeNamespace = "_wvjb"

    /// Namespaces no interface may be registered under (PROTOCOL.md 5 and 9): the internal
    /// API and the internal methods of the other bridges' page shims.
    public static let reservedNamespaces: Set<String> = [internalNamespace, webViewJavascriptBridgeNamespace, "_webkit", "_page"]

    /// Resolves `raw`; `nil` when it is empty, starts or ends with a dot, contains `..` or
    /// whitespace (such a call is `methodNotFound`). Names are not trimmed.
    public init?(_ raw: String) {
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

    public var description: String { namespace.isEmpty ? name : namespace + "." + name }

    /// True for `_dsb.*`.
    public var isInternal: Bool { namespace == Self.internalNamespace }

    /// Whether `namespace` is reserved (``reservedNamespaces``), compared byte for byte.
    public static func isReserved(namespace: String) -> Bool {
        reservedNamespaces.contains { InterfaceRegistry.sameBytes($0, namespace) }
    }
}

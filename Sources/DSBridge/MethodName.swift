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

    /// Resolves `raw`; `nil` when it is empty, starts or ends with a dot, contains `..` or
    /// whitespace (such a call is `methodNotFound`). Names are not trimmed.
    public init?(_ raw: String) {
        let utf8 = raw.utf8
        guard let first = utf8.first, let last = utf8.last, first != UInt8(ascii: "."), last != UInt8(ascii: ".")
        else { return nil }
        var lastDot: String.Index?
        var previousWasDot = false
        for i in utf8.indices {
            let c = utf8[i]
            if c == UInt8(ascii: ".") {
                if previousWasDot { return nil }
                previousWasDot = true
                lastDot = i
            } else {
                previousWasDot = false
                if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0B || c == 0x0C { return nil }
            }
        }
        if raw.unicodeScalars.contains(where: { $0.properties.isWhitespace }) { return nil }
        if let dot = lastDot {
            namespace = String(raw[..<dot])
            name = String(raw[raw.index(after: dot)...])
        } else {
            namespace = ""
            name = raw
        }
    }

    public var description: String { namespace.isEmpty ? name : namespace + "." + name }

    /// True for `_dsb.*`.
    public var isInternal: Bool { namespace == Self.internalNamespace }
}

// SPDX-License-Identifier: MIT

/// A sequenced server message (`ret`, `cb`, `invoke`) without its `seq`: the bytes are
/// `{"t":"KIND","seq":` + the number + ``tail``, exactly as ``ServerMessage/encoded(seq:)``
/// writes them. A node passing a message to another node's session (docs/CLUSTER.md, late
/// messages) sends it this way, and the owner numbers it.
public struct SequencedMessage: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case ret, cb, invoke
    }

    public let kind: Kind
    /// Everything after the `seq` number, from the comma to the closing brace.
    public let tail: [UInt8]

    public init(kind: Kind, tail: [UInt8]) {
        self.kind = kind
        self.tail = tail
    }

    /// Splits the bytes of a message encoded with `seq`; `nil` when they are not a
    /// sequenced message with that number.
    public init?(encoded bytes: [UInt8], seq: Int64) {
        for kind in Kind.allCases {
            let prefix = Self.prefix(kind)
            let digits = JSONWriter.digitCount(seq)
            guard bytes.count > prefix.count + digits, bytes.starts(with: prefix) else { continue }
            var w = JSONWriter(capacity: digits)
            w.write(integer: seq)
            guard bytes[prefix.count..<(prefix.count + digits)].elementsEqual(w.bytes) else { return nil }
            self.kind = kind
            self.tail = Array(bytes[(prefix.count + digits)...])
            return
        }
        return nil
    }

    /// Whether this is a `cb` for page callback `stub` (its tail starts with that stub, as
    /// ``ServerMessage/encoded(seq:)`` writes it).
    public func isCallback(for stub: String) -> Bool {
        guard kind == .cb else { return false }
        var w = JSONWriter(capacity: stub.utf8.count + 10)
        w.raw(",\"stub\":")
        w.write(string: stub)
        return tail.starts(with: w.bytes)
    }

    /// The message numbered `seq`.
    public func bytes(seq: Int64) -> [UInt8] {
        let prefix = Self.prefix(kind)
        var w = JSONWriter(capacity: prefix.count + JSONWriter.digitCount(seq) + tail.count)
        w.raw(bytes: prefix)
        w.write(integer: seq)
        w.raw(bytes: tail)
        return w.bytes
    }

    private static let prefixes: [Kind: [UInt8]] = Dictionary(
        uniqueKeysWithValues: Kind.allCases.map { ($0, Array("{\"t\":\"\($0.rawValue)\",\"seq\":".utf8)) })

    private static func prefix(_ kind: Kind) -> [UInt8] {
        prefixes[kind] ?? []
    }
}

// SPDX-License-Identifier: MIT

/// An `invoke` whose expensive part — `"method"` and the JSON of `"args"` — was encoded
/// once, off the session's lock; numbering it (`seq`, `callbackId`) only copies bytes.
/// Releasing thousands of held invokes at `dsinit` therefore encodes nothing under the
/// lock (issue 13). The bytes equal ``ServerMessage/encoded(seq:)`` of the same invoke.
public struct EncodedInvoke: Sendable {
    /// `,"method":M,"args":[...]}`
    public let tail: [UInt8]

    /// Encodes `method` and `args` (any thread, no lock).
    public init(method: String, args: [JSONValue]) {
        var w = JSONWriter(capacity: 24 + method.utf8.count + JSONWriter.estimatedSize(of: .array(args)))
        w.raw(",\"method\":")
        w.write(string: method)
        w.raw(",\"args\":")
        w.write(.array(args))
        w.raw("}")
        tail = w.bytes
    }

    /// Writes `method` and `args`, the checked text of a JSON array, as it is (a call
    /// another node encoded: no second encoding).
    package init(method: String, args: RawJSON) {
        var w = JSONWriter(capacity: 24 + method.utf8.count + args.bytes.count)
        w.raw(",\"method\":")
        w.write(string: method)
        w.raw(",\"args\":")
        w.raw(args)
        w.raw("}")
        tail = w.bytes
    }

    /// An invoke whose tail a journal kept (``tail``).
    public init(tail: [UInt8]) {
        self.tail = tail
    }

    /// The size of ``bytes(seq:callbackId:)`` without writing it.
    public func size(seq: Int64, callbackId: Int64) -> Int {
        20 + JSONWriter.digitCount(seq) + 14 + JSONWriter.digitCount(callbackId) + tail.count
    }

    /// The whole message with its numbers.
    public func bytes(seq: Int64, callbackId: Int64) -> [UInt8] {
        var w = JSONWriter(capacity: 40 + tail.count)
        w.raw("{\"t\":\"invoke\",\"seq\":")
        w.write(integer: seq)
        w.raw(",\"callbackId\":")
        w.write(integer: callbackId)
        w.raw(bytes: tail)
        return w.bytes
    }
}

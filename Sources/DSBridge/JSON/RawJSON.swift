// SPDX-License-Identifier: MIT

/// The text of one JSON value as it arrived, already checked to be well-formed: kept as
/// bytes (a slice of the frame it came in, no copy) until something needs the value.
/// Equal when the texts are equal byte for byte.
public struct RawJSON: Sendable, Equatable {
    /// The value's UTF-8 text.
    public let bytes: ArraySlice<UInt8>

    /// `bytes` must hold exactly one well-formed JSON value (the frame decoder's check).
    package init(checked bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    /// The text of `value`.
    public init(_ value: JSONValue) {
        bytes = JSONWriter.bytes(value)[...]
    }

    /// The value. It was checked when it arrived, so this fails only if that check and the
    /// parser disagree (a bug), with the parser's error.
    public func value() throws(JSONParseError) -> JSONValue {
        try JSONParser.parse(bytes, maxDepth: .max)
    }

    /// ``value()``, or `nil` when it fails: a message's `arg` as a value
    /// (``PageMessage/Call/arg``, ``SyncCallRequest/arg``).
    var parsedValue: JSONValue? { try? value() }
}

// SPDX-License-Identifier: MIT

/// Receives a string's text as ``JSONScanner`` reads it, for a reader that builds the
/// string (``JSONParser``); a reader that only checks passes ``JSONSkippedString``.
///
/// A string without escapes reaches no sink: its text is the token's bytes. Once a string
/// has an escape, the sink gets every piece in order: the runs of bytes that stand as they
/// are, and each escape's UTF-8.
protocol JSONStringSink: ~Copyable {
    /// Bytes `range` of the input stand for themselves (a run before an escape or, after
    /// one, before the closing quote); never empty.
    mutating func plain(_ range: Range<Int>, of input: UnsafeBufferPointer<UInt8>)
    /// One escape, decoded: an ASCII byte or a whole scalar's UTF-8 (at most 4 bytes).
    mutating func escaped(_ scalar: Unicode.Scalar)
}

/// A sink that keeps nothing: the scanner only checks the string.
struct JSONSkippedString: JSONStringSink {
    @inline(__always)
    mutating func plain(_ range: Range<Int>, of input: UnsafeBufferPointer<UInt8>) {}
    @inline(__always)
    mutating func escaped(_ scalar: Unicode.Scalar) {}
}

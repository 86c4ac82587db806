// SPDX-License-Identifier: MIT

/// The frame nearly every page sends, read in one pass: one call laid out as dsbridge.js
/// writes it, `{"t":"call","id":N,"method":"M","arg":A}` (optionally `,"traceparent":"…"`
/// before the `}`), with no whitespace, `N` of 1 to 18 digits, `M` without escapes. The
/// general reading (``PageFrameDecoder``) checks the frame, notes its fields, reads each
/// field, then a call's `arg` is scanned again for `data` and `_dscbstub` when it runs; here
/// the layout is matched byte by byte, and an object `A`'s `data` and `_dscbstub` are noted
/// on the way (``PageMessage/Call/envelope``).
///
/// Every byte is still checked by ``JSONScanner``'s rules (strings, `A` as a whole, depth):
/// a frame read here is valid JSON and gives the message the general reading gives. Any
/// other frame (another layout or order, whitespace, a batch, an escape in `M`, a fault
/// anywhere) gives `nil`, and the general reading decodes it or names its fault.
enum CallFrameFastPath {
    /// The call `frame` holds, or `nil` when it is not in the fast layout.
    static func call(in frame: [UInt8], maxDepth: Int) -> PageMessage.Call? {
        layout(of: frame, maxDepth: maxDepth).map { call(in: frame, $0) }
    }

    /// Where the call's fields are in `frame`, or `nil` when it is not in the fast layout.
    /// (A layout is plain offsets: a caller that goes on only with a call of this layout
    /// makes it with ``call(in:_:)`` and passes no optional call around.)
    static func layout(of frame: [UInt8], maxDepth: Int) -> Layout? {
        frame.withUnsafeBufferPointer { read($0, maxDepth: maxDepth) }
    }

    /// The call of `frame`, read as `layout`.
    static func call(in frame: [UInt8], _ layout: Layout) -> PageMessage.Call {
        let trace = layout.traceparent.flatMap { TraceContext(quotedIn: frame, $0) }
        // Made whole: setting `envelope` after the initializer copied the call (about 140 bytes).
        return PageMessage.Call(
            id: layout.id, method: String(decoding: frame[layout.method], as: UTF8.self),
            rawArg: RawJSON(checked: frame[layout.arg]), trace: trace, envelope: layout.envelope)
    }

    /// Where the fields are in a frame of the fast layout.
    struct Layout {
        var id: Int64
        /// The method's text (between its quotes).
        var method: Range<Int>
        var arg: Range<Int>
        /// `data` and `_dscbstub` of an object `arg`, from its first byte.
        var envelope: CallArgument.Envelope?
        /// A `traceparent` string, quotes included.
        var traceparent: Range<Int>?
    }

    private static func read(_ input: UnsafeBufferPointer<UInt8>, maxDepth: Int) -> Layout? {
        var s = JSONScanner(input, maxDepth: maxDepth)
        guard maxDepth >= 1, s.skip(#"{"t":"call","id":"#) else { return nil }
        // 1 to 18 digits, no leading zero (ids are >= 1): the value needs no overflow check.
        guard let first = s.peek, first >= UInt8(ascii: "1"), first <= UInt8(ascii: "9") else { return nil }
        var id: Int64 = 0
        let digitsStart = s.pos
        while let c = s.peek, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") {
            guard s.pos - digitsStart < 18 else { return nil }
            id = id &* 10 &+ Int64(c &- UInt8(ascii: "0"))
            s.pos += 1
        }
        guard s.skip(#","method":"#), s.peek == UInt8(ascii: "\"") else { return nil }
        do throws(JSONParseError) {
            let method = try s.readString()
            guard !method.hasEscapes, s.skip(#","arg":"#) else { return nil }
            let argStart = s.pos
            var envelope: CallArgument.Envelope?
            if s.peek == UInt8(ascii: "{") {
                var found = CallArgument.Envelope()
                try s.members(depth: 2) { name, value in
                    found.note(
                        name, (value.range.lowerBound - argStart)..<(value.range.upperBound - argStart), plainString: value.isPlainString)
                }
                envelope = found
            } else {
                try s.skipValue(depth: 1)
            }
            let arg = argStart..<s.pos
            var traceparent: Range<Int>?
            if s.skip(#","traceparent":"#) {
                guard s.peek == UInt8(ascii: "\"") else { return nil }
                let start = s.pos
                _ = try s.readString()
                traceparent = start..<s.pos
            }
            guard s.skip("}"), s.pos == input.count else { return nil }
            return Layout(id: id, method: method.start..<method.end, arg: arg, envelope: envelope, traceparent: traceparent)
        } catch {
            return nil
        }
    }
}

extension JSONScanner {
    /// Steps over `literal` when the input continues with exactly it.
    fileprivate mutating func skip(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard input.count - pos >= n else { return false }
        let p = literal.utf8Start
        for i in 0..<n where input[pos + i] != p[i] { return false }
        pos += n
        return true
    }
}

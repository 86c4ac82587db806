// SPDX-License-Identifier: MIT

/// Reads JSON objects and arrays without building values (``JSONScanner``: the same checks
/// as ``JSONParser``), for readers that want some members as values and keep others as text
/// (a cluster's node messages: a call's `args` go to the page as they came).
package enum JSONObjectReader {
    /// The members of the object that is the whole of `text` (whitespace around it
    /// allowed): names decoded, values as ranges of `text`, in order. `nil` when `text` is
    /// not exactly one well-formed object.
    package static func members(of text: UnsafeBufferPointer<UInt8>, maxDepth: Int = 128) -> [(name: String, value: Range<Int>)]? {
        var s = JSONScanner(text, maxDepth: maxDepth)
        s.skipWhitespace()
        guard s.peek == UInt8(ascii: "{") else { return nil }
        var members: [(name: String, value: Range<Int>)] = []
        var undecodable = false
        let read: ()? = try? s.members(depth: 1) { name, value in
            if let decoded = name.decoded { members.append((decoded, value.range)) } else { undecodable = true }
        }
        guard read != nil, !undecodable, (try? s.expectEnd()) != nil else { return nil }
        return members
    }

    /// The elements of the array that is the whole of `text`, as ranges of `text`; `nil`
    /// when `text` is not exactly one well-formed array.
    package static func elements(of text: UnsafeBufferPointer<UInt8>, maxDepth: Int = 128) -> [Range<Int>]? {
        var s = JSONScanner(text, maxDepth: maxDepth)
        s.skipWhitespace()
        guard s.peek == UInt8(ascii: "[") else { return nil }
        var elements: [Range<Int>] = []
        do {
            if try s.enterArray(depth: 1) {
                repeat {
                    let start = s.pos
                    try s.skipValue(depth: 1)
                    elements.append(start..<s.pos)
                } while try s.nextMember(closing: UInt8(ascii: "]"))
            }
            try s.expectEnd()
        } catch {
            return nil
        }
        return elements
    }

    /// The value at `range` of `text` (a range these readers gave).
    package static func value(_ range: Range<Int>, in text: UnsafeBufferPointer<UInt8>, maxDepth: Int = 128) -> JSONValue? {
        try? JSONParser.parse(buffer: UnsafeBufferPointer(rebasing: text[range]), maxDepth: maxDepth).get()
    }

    /// The string at `range` of `text`; `nil` when it is not a string.
    package static func string(_ range: Range<Int>, in text: UnsafeBufferPointer<UInt8>) -> String? {
        guard range.count >= 2, text[range.lowerBound] == UInt8(ascii: "\"") else { return nil }
        let inner = UnsafeBufferPointer(rebasing: text[(range.lowerBound + 1)..<(range.upperBound - 1)])
        // Checked as UTF-8 by the scan: without escapes the bytes are the text.
        if !inner.contains(UInt8(ascii: "\\")) { return String(decoding: inner, as: UTF8.self) }
        return value(range, in: text)?.stringValue
    }

    /// The integer at `range` of `text`; `nil` when it is not an integer.
    package static func integer(_ range: Range<Int>, in text: UnsafeBufferPointer<UInt8>) -> Int64? {
        value(range, in: text)?.integerValue
    }

    /// The text at `range` of `text` as a checked value, kept as bytes.
    package static func raw(_ range: Range<Int>, in text: UnsafeBufferPointer<UInt8>) -> RawJSON {
        RawJSON(checked: Array(UnsafeBufferPointer(rebasing: text[range]))[...])
    }
}

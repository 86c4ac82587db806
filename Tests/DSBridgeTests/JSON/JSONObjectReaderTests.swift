// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridge

@Suite("Reading objects and arrays without building values")
struct JSONObjectReaderTests {
    private func withText<T>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        Array(text.utf8).withUnsafeBufferPointer(body)
    }

    @Test("members: names decoded, values as ranges, in order; only exactly one well-formed object")
    func members() {
        withText(#" {"a" : 1, "b\u0031":"x\"y", "a":[true, null]} "#) { text in
            let members = JSONObjectReader.members(of: text)
            #expect(members?.map(\.name) == ["a", "b1", "a"])
            guard let members, members.count == 3 else { return }
            #expect(JSONObjectReader.integer(members[0].value, in: text) == 1)
            #expect(JSONObjectReader.string(members[1].value, in: text) == "x\"y")
            #expect(JSONObjectReader.value(members[2].value, in: text) == [true, .null])
            #expect(JSONObjectReader.string(members[0].value, in: text) == nil, "not a string")
            #expect(JSONObjectReader.integer(members[2].value, in: text) == nil, "not an integer")
            #expect(String(decoding: JSONObjectReader.raw(members[2].value, in: text).bytes, as: UTF8.self) == "[true, null]")
        }
        for bad in [#"{"a":1} x"#, #"{"a":1,}"#, "[1]", "", #"{"a":"\u00"}"#, "{\"a\":\"\u{7}\"}"] {
            #expect(withText(bad) { JSONObjectReader.members(of: $0) } == nil, "\(bad)")
        }
        #expect(withText("{}") { JSONObjectReader.members(of: $0)?.count } == 0)
    }

    @Test("elements: ranges of each value; only exactly one well-formed array")
    func elements() {
        withText(#"[ {"t":1} ,"s", [2] ]"#) { text in
            let ranges = JSONObjectReader.elements(of: text) ?? []
            #expect(ranges.map { String(decoding: UnsafeBufferPointer(rebasing: text[$0]), as: UTF8.self) } == [#"{"t":1}"#, #""s""#, "[2]"])
        }
        #expect(withText("[]") { JSONObjectReader.elements(of: $0) } == [])
        for bad in ["[1,]", "[1] [2]", #"{"a":1}"#, "[", "[\"\u{1}\"]"] {
            #expect(withText(bad) { JSONObjectReader.elements(of: $0) } == nil, "\(bad)")
        }
    }

    @Test("an array nested past the depth limit is refused, as the parser refuses it")
    func depth() {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(withText(deep) { JSONObjectReader.elements(of: $0) } == nil)
        #expect(withText(deep) { JSONObjectReader.elements(of: $0, maxDepth: 300)?.count } == 1)
    }
}

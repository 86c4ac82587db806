// SPDX-License-Identifier: MIT
import DSBridge
import Testing

@Suite("Method names are split and matched byte for byte")
struct MethodNameExactnessTests {
    @Test(
        "the last dot splits the name even when it forms a grapheme cluster with its neighbours",
        arguments: [
            ("a.\u{301}b", "a", "\u{301}b"),
            ("a.\u{200D}", "a", "\u{200D}"),
            ("\u{600}.b", "\u{600}", "b"),
            ("_dsb.\u{301}dsinit", "_dsb", "\u{301}dsinit"),
            ("x.y.z", "x.y", "z"),
        ])
    func splitsOnBytes(raw: String, namespace: String, name: String) throws {
        let m = try #require(MethodName(raw))
        #expect(Array(m.namespace.utf8) == Array(namespace.utf8))
        #expect(Array(m.name.utf8) == Array(name.utf8))
        #expect(Array(m.description.utf8) == Array(raw.utf8), "joins back to the same bytes")
    }

    @Test("a combining mark after _dsb. does not reach an internal method")
    func internalNamesAreExact() {
        let registry = InterfaceRegistry()
        #expect(throws: CallFailure.self) { try CallRoute.resolve("_dsb.\u{301}dsinit", in: registry) }
        #expect((try? CallRoute.resolve("_dsb.dsinit", in: registry)) != nil)
    }

    @Test("a canonically equivalent spelling of a namespace or method is not the same name")
    func registryMatchesBytes() {
        let registry = InterfaceRegistry()
        registry.addInterface(ProbeInterface(), by: "K")
        #expect(registry.lookup(MethodName("K.value")!) != nil)
        #expect(registry.lookup(MethodName("\u{212A}.value")!) == nil, "Kelvin sign is not K")
        registry.addInterface(ProbeInterface(), by: "caf\u{E9}")
        #expect(registry.lookup(MethodName("caf\u{E9}.value")!) != nil)
        #expect(registry.lookup(MethodName("cafe\u{301}.value")!) == nil)
    }
}

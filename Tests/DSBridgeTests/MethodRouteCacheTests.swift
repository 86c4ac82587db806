// SPDX-License-Identifier: MIT
import DSBridge
import Testing

@Exposed
struct RouteCacheFirst {
    @nonblocking func which() -> String { "first" }
}

@Exposed
struct RouteCacheSecond {
    @nonblocking func which() -> String { "second" }
    func other() -> String { "other" }
}

/// A session remembers the route of the method it called last; a change of the registry
/// (an interface added, replaced or removed) is seen at the very next call.
@Suite("Method routes: the last one is remembered, registry changes are seen at once")
struct MethodRouteCacheTests {
    @Test("replacing, removing and adding back a namespace between two calls of one method")
    func registryChanges() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.bridge.addInterface(RouteCacheFirst(), by: "rc")
        h.call(1, "rc.which", nil)
        h.call(2, "rc.which", nil)
        #expect(try await h.messages(2).map { $0["data"] } == ["first", "first"])
        h.bridge.addInterface(RouteCacheSecond(), by: "rc")
        h.call(3, "rc.which", nil)
        #expect(try await h.messages(1).first?["data"] == "second")
        h.bridge.removeInterface(by: "rc")
        h.call(4, "rc.which", nil)
        #expect(try await h.messages(1).first?["error"]?["kind"] == "methodNotFound")
        h.bridge.addInterface(RouteCacheSecond(), by: "rc")
        h.call(5, "rc.other", nil)
        h.call(6, "rc.which", nil)
        #expect(try await h.messages(2).map { $0["data"] } == ["other", "second"])
    }
}

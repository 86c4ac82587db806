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

/// The bridge remembers the routes of the methods called last; a change of the registry
/// (an interface added, replaced or removed) is seen at the very next call.
@Suite("Method routes: recent ones are remembered, registry changes are seen at once")
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

@Exposed
struct RouteCacheNamed {
    let name: String
    @nonblocking func which() -> String { name }
}

extension MethodRouteCacheTests {
    @Test("more methods than the cache keeps, called in turn, each reach their own interface")
    func moreMethodsThanEntries() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        let namespaces = (0..<11).map { "n\($0)" }
        for ns in namespaces { h.bridge.addInterface(RouteCacheNamed(name: ns), by: ns) }
        var id: Int64 = 0
        for _ in 0..<3 {
            for ns in namespaces {
                id += 1
                h.call(id, "\(ns).which", nil)
            }
            let answers = try await h.messages(namespaces.count).map { $0["data"] }
            #expect(answers == namespaces.map { JSONValue.string($0) })
        }
    }
}

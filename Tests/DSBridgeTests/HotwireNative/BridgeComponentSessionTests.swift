import Synchronization
import Testing

// SPDX-License-Identifier: MIT
@testable import DSBridge

/// A component that counts its instances and keeps what it received, in order.
final class CountingComponent: BridgeComponent {
    override class var name: String { "counting" }
    nonisolated static let made = Atomic<Int>(0)
    private(set) var seen: [String] = []

    required init(destination: BridgeDestination, delegate: any BridgingDelegate) {
        Self.made.add(1, ordering: .relaxed)
        super.init(destination: destination, delegate: delegate)
    }

    override func onReceive(message: Message) {
        seen.append("\(message.event):\(message.id)")
    }
}

/// A component that replies to every `ask` at once, eight times (any number of replies per id),
/// from synchronous code: each reply is a task of its own, and they must not overtake each other.
final class EightRepliesComponent: BridgeComponent {
    override class var name: String { "eight" }
    nonisolated static let replies = 8
    override func onReceive(message: Message) {
        guard message.event == "ask" else { return }
        for n in 1...Self.replies { reply(to: "ask", with: "{\"n\":\(n)}") }
    }
}

final class UnnamedComponent: BridgeComponent {}

final class SpacedComponent: BridgeComponent {
    override class var name: String { "over flow" }
}

final class BracketComponent: BridgeComponent {
    override class var name: String { "menu]" }
}

final class LongComponent: BridgeComponent {
    override class var name: String { String(repeating: "m", count: 129) }
}

/// Pages' messages through `_hotwire.receive` and `_hotwire.components`, components per
/// session, replies as `_hotwire.reply` invokes (PROTOCOL.md 9.4).
@Suite("Bridge components over a page session (PROTOCOL.md 9.4)")
struct BridgeComponentSessionTests {
    private func message(_ id: String, _ component: String, _ event: String, _ data: JSONValue = [:]) -> JSONValue {
        ["id": .string(id), "component": .string(component), "event": .string(event), "data": data]
    }

    /// A ready page session on a bridge with `components` registered.
    private func page(_ components: [BridgeComponent.Type]) async throws -> BridgeHarness {
        let h = BridgeHarness(realWorkers: true)
        try h.bridge.register(components: components)
        _ = try await h.hello()
        h.call(1, "_dsb.dsinit", nil)
        _ = try await h.messages(1)
        return h
    }

    @Test("_hotwire.components answers the registered names in registration order")
    func componentsListed() async throws {
        let h = try await page([TwoBridgeComponent.self, OneBridgeComponent.self])
        h.call(2, "_hotwire.components", nil)
        #expect(try await h.messages(1)[0]["data"] == ["two", "one"])
    }

    @Test("a message reaches its component (ret null), which reads metadata.url and remembers it per event")
    func messageReachesComponent() async throws {
        let h = try await page([OneBridgeComponent.self])
        let data: JSONValue = ["submitTitle": "Submit", "metadata": ["url": "http://page/form"]]
        h.call(2, "_hotwire.receive", message("1", "one", "connect", data))
        #expect(try await h.messages(1)[0] == ["t": "ret", "seq": 2, "id": 2, "code": 0, "data": nil])
        let session = try #require(h.bridge.sessions.first)
        let received = await onComponents { session.bridgeComponents["one"]?.receivedMessage(for: "connect") }
        #expect(received?.metadata?.url == "http://page/form")
        #expect(received?.data() == ["submitTitle": "Submit", "metadata": ["url": "http://page/form"]] as JSONValue)
    }

    @Test("one instance per component per session, made on its first message; messages in order")
    func oneInstancePerSession() async throws {
        let before = CountingComponent.made.load(ordering: .relaxed)
        let h = try await page([CountingComponent.self])
        for i in 2...4 { h.call(Int64(i), "_hotwire.receive", message(String(i), "counting", "e\(i)")) }
        _ = try await h.messages(3)
        let other = h.secondConnection()
        _ = try await other.hello()
        other.call(1, "_hotwire.receive", message("1", "counting", "connect"))
        _ = try await other.messages(1)
        #expect(CountingComponent.made.load(ordering: .relaxed) - before == 2)
        let first = try #require(h.bridge.sessions.first)
        let seen = await onComponents { (first.bridgeComponents["counting"] as? CountingComponent)?.seen }
        #expect(seen == ["e2:2", "e3:3", "e4:4"])
    }

    @Test("any number of replies to one message id, each an invoke of _hotwire.reply in order")
    func manyRepliesToOneMessage() async throws {
        let h = try await page([EightRepliesComponent.self])
        let count = EightRepliesComponent.replies
        h.call(2, "_hotwire.receive", message("7", "eight", "ask", ["metadata": ["url": "u"]]))
        let m = try await h.messages(1 + count)
        let replies = m.filter { $0["t"] == "invoke" }
        #expect(replies.map { $0["method"] } == Array(repeating: "_hotwire.reply", count: count))
        #expect(replies.map { $0["args"]?.arrayValue?.first?["id"] } == Array(repeating: "7", count: count))
        let data = replies.map { $0["args"]?.arrayValue?.first?["data"] }
        #expect(data == (1...count).map { ["n": .integer(Int64($0))] as JSONValue })
    }

    @Test("a message to a component nothing is registered under is methodNotFound; a malformed one badArgument")
    func refusedMessages() async throws {
        let h = try await page([OneBridgeComponent.self])
        h.call(2, "_hotwire.receive", message("1", "menu", "display"))
        h.call(3, "_hotwire.receive", ["id": 1, "component": "one", "event": "connect"])
        h.call(4, "_hotwire.receive", message("1", "one", "connect", [1, 2]))
        h.call(5, "_hotwire.nothing", nil)
        let m = try await h.messages(4)
        #expect(m.map { $0["error"]?["kind"] } == ["methodNotFound", "badArgument", "badArgument", "methodNotFound"])
        #expect(m[0]["error"]?["message"] == "no bridge component \"menu\" is registered")
    }

    @Test("when the session ends its components go, and their replies answer false")
    func sessionEndDropsComponents() async throws {
        let h = try await page([OneBridgeComponent.self])
        h.call(2, "_hotwire.receive", message("1", "one", "connect"))
        _ = try await h.messages(1)
        let session = try #require(h.bridge.sessions.first)
        weak var held: BridgeComponent?
        do {
            let component = try #require(await onComponents { session.bridgeComponents["one"] })
            held = component
            h.call(3, "_dsb.closePage", nil)
            _ = try await h.closeCode()
            #expect(await eventually { h.bridge.sessions.isEmpty })
            #expect(await onComponents { session.bridgeComponents.isEmpty })
            #expect(try await onComponents { try await component.reply(to: "connect") } == false)
        }
        #expect(await eventually { held == nil })
    }

    @Test("a component remembers the last message of at most maxRememberedEvents events, forgetting the oldest")
    func rememberedEventsAreBounded() async throws {
        let f = try await ComponentFixture()
        let (events, first, newest) = await onComponents {
            for i in 0..<BridgeComponent.maxRememberedEvents {
                f.component.didReceive(message: Message(id: "\(i)", component: "one", event: "e\(i)", metadata: nil, jsonData: "{}"))
            }
            return (f.component.receivedEvents, f.component.receivedMessage(for: "connect"), f.component.receivedMessage(for: "e63")?.id)
        }
        #expect(events.count == BridgeComponent.maxRememberedEvents && events.first == "e0")
        #expect(first == nil && newest == "63")
    }

    @Test("a reply larger than replayMaxBytes throws tooLarge and sends nothing")
    func tooLargeReply() async throws {
        let h = BridgeHarness(configure: { $0.replayMaxBytes = 2048 }, realWorkers: true)
        try h.bridge.register(component: OneBridgeComponent.self)
        _ = try await h.hello()
        h.call(1, "_hotwire.receive", message("1", "one", "connect"))
        _ = try await h.messages(1)
        let session = try #require(h.bridge.sessions.first)
        let big = "{\"x\":\"" + String(repeating: "a", count: 4096) + "\"}"
        let error = await #expect(throws: BridgeComponentError.self) {
            try await onComponents { try await session.bridgeComponents["one"]?.reply(to: "connect", with: big) }
        }
        guard case .tooLarge(let bytes)? = error else {
            Issue.record("expected tooLarge, got \(String(describing: error))")
            return
        }
        #expect(bytes > 4096)
        h.call(2, "p.value", "probe")
        #expect(try await h.messages(1)[0]["id"] == 2, "nothing was sent before the probe's ret")
    }

    @Test("component names are checked at registration; a name registered again takes the new class")
    func namesChecked() throws {
        let registry = InterfaceRegistry()
        #expect(throws: BridgeComponentNameError.empty(type: "UnnamedComponent")) { try registry.bridgeComponents.register(UnnamedComponent.self) }
        #expect(throws: BridgeComponentNameError.invalid(name: "over flow", type: "SpacedComponent")) {
            try registry.bridgeComponents.register(SpacedComponent.self)
        }
        #expect(throws: BridgeComponentNameError.self) { try registry.bridgeComponents.register(BracketComponent.self) }
        #expect(throws: BridgeComponentNameError.self) { try registry.bridgeComponents.register(LongComponent.self) }
        #expect(registry.bridgeComponents.names.isEmpty)
        try registry.bridgeComponents.register(OneBridgeComponent.self)
        try registry.bridgeComponents.register(TwoBridgeComponent.self)
        #expect(registry.bridgeComponents.names == ["one", "two"])
        registry.bridgeComponents.unregister("one")
        #expect(registry.bridgeComponents.names == ["two"])
    }
}

import Testing

// SPDX-License-Identifier: MIT
@testable import DSBridge

/// Components of the scenarios ported from hotwire-native-ios' Tests/Bridge/TestData.swift.
final class OneBridgeComponent: BridgeComponent {
    override class var name: String { "one" }
}

final class TwoBridgeComponent: BridgeComponent {
    override class var name: String { "two" }
}

/// The data of hotwire-native-ios' `MessageData` test fixture.
struct MessageData: Codable, Equatable {
    let title: String
    let subtitle: String
    let actionName: String
}

/// Runs `body` on the components' actor.
func onComponents<T: Sendable>(_ body: @BridgeComponentActor @Sendable () async throws -> T) async rethrows -> T {
    try await body()
}

/// A component of a real page session (a ``BridgeHarness`` page that said hello and is
/// ready), its delegate the session's own: replies come out as `_hotwire.reply` invokes.
struct ComponentFixture {
    let harness: BridgeHarness
    let session: BridgeSession
    let component: OneBridgeComponent
    /// The session's delegate, held here as the server holds it (components hold it weakly).
    let delegate: PageReplies

    /// hotwire-native-ios' `BridgeComponentTest.message`.
    static let message = Message(
        id: "1", component: OneBridgeComponent.name, event: "connect", metadata: .init(url: "https://37signals.com"),
        jsonData: "{\"title\":\"Page-title\",\"subtitle\":\"Page-subtitle\"}")

    /// As `setUp` there: the component has received ``message``.
    init() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, "_dsb.dsinit", nil)
        _ = try await h.messages(1)
        harness = h
        session = try #require(h.bridge.sessions.first)
        let session = self.session
        let delegate = PageReplies(session: session)
        self.delegate = delegate
        component = await onComponents {
            let component = OneBridgeComponent(destination: BridgeDestination(session: session), delegate: delegate)
            component.didReceive(message: ComponentFixture.message)
            return component
        }
    }

    /// What a reply made with a completion handler (`start` makes it) completed with.
    func completed(
        _ start: @escaping @BridgeComponentActor @Sendable (OneBridgeComponent, @escaping BridgeComponent.ReplyCompletionHandler) -> Void
    ) async -> Result<Bool, any Error> {
        let component = self.component
        return await onComponents { await withCheckedContinuation { done in start(component) { done.resume(returning: $0) } } }
    }

    /// The reply the page got next (an invoke of `_hotwire.reply`), as a message.
    func nextReply() async throws -> JSONValue? {
        let m = try await harness.messages(1)[0]
        guard m["t"] == "invoke", m["method"] == "_hotwire.reply", case .array(let args)? = m["args"] else { return nil }
        return args.first
    }

    /// Whether the page got nothing since the last check: a probe call's `ret` comes next.
    func gotNoReply(probeID: Int64 = 50) async throws -> Bool {
        harness.call(probeID, "p.value", "probe")
        return try await harness.messages(1)[0]["id"] == .integer(probeID)
    }

    /// Ported: the delegate spy's `replyWithMessageArg` is the reply the page received.
    func pageReceived(_ message: Message) async throws -> Bool {
        guard let reply = try await nextReply(), let got = try? Message(wire: reply) else { return false }
        // The page's data carries no metadata member here: compare the data as sent.
        return got == Message(id: message.id, component: message.component, event: message.event, metadata: got.metadata, jsonData: message.jsonData)
    }
}

/// The scenarios of hotwire-native-ios' Tests/Bridge/BridgeComponentTests.swift that need no
/// UIKit, against a component of a real page session (PROTOCOL.md 9.4).
@Suite("BridgeComponent: hotwire-native-ios' BridgeComponentTests, ported")
struct BridgeComponentTests {
    @Test("didReceive caches the message")
    func didReceiveCachesTheMessage() async throws {
        let f = try await ComponentFixture()
        let cached = await onComponents { f.component.receivedMessage(for: "connect") }
        #expect(cached == ComponentFixture.message)
    }

    @Test("didReceive caches only the last message of an event")
    func didReceiveCachesOnlyTheLastMessage() async throws {
        let f = try await ComponentFixture()
        let newMessage = ComponentFixture.message.replacing(jsonData: "{\"title\":\"Page-title\"}")
        let cached = await onComponents {
            f.component.didReceive(message: newMessage)
            return f.component.receivedMessage(for: "connect")
        }
        #expect(cached == newMessage)
    }

    @Test("no message is cached for an event never received")
    func retrievingNonCachedMessageForEvent() async throws {
        let f = try await ComponentFixture()
        #expect(await onComponents { f.component.receivedMessage(for: "disconnect") } == nil)
    }

    @Test("a reply without a delegate completes with false and sends nothing")
    func replyWithNilDelegateReturnsFalse() async throws {
        let f = try await ComponentFixture()
        await onComponents { f.component.delegate = nil }
        let result = await f.completed { c, done in c.reply(to: "connect", completion: done) }
        #expect(try result.get() == false)
        #expect(try await f.gotNoReply())
    }

    @Test("a reply to a received message succeeds: the page gets that message")
    func replyToReceivedMessageSucceeds() async throws {
        let f = try await ComponentFixture()
        let result = await f.completed { c, done in c.reply(to: "connect", completion: done) }
        #expect(try result.get() == true)
        #expect(try await f.pageReceived(ComponentFixture.message))
    }

    @Test("a reply with a Codable object succeeds: the page gets the message with that data")
    func replyToReceivedMessageWithACodableObjectSucceeds() async throws {
        let f = try await ComponentFixture()
        let data = MessageData(title: "hey", subtitle: "", actionName: "tap")
        let newMessage = ComponentFixture.message.replacing(jsonData: "{\"title\":\"hey\",\"subtitle\":\"\",\"actionName\":\"tap\"}")
        let result = await f.completed { c, done in c.reply(to: "connect", with: data, completion: done) }
        #expect(try result.get() == true)
        #expect(try await f.pageReceived(newMessage))
    }

    @Test("a reply with a Codable object to an event never received is ignored")
    func replyToMessageNotReceivedWithACodableObjectIgnoresTheReply() async throws {
        let f = try await ComponentFixture()
        let data = MessageData(title: "hey", subtitle: "", actionName: "tap")
        let result = await f.completed { c, done in c.reply(to: "disconnect", with: data, completion: done) }
        #expect(try result.get() == false)
        #expect(try await f.gotNoReply())
    }

    @Test("a reply to an event never received is ignored")
    func replyToMessageNotReceivedIgnoresTheReply() async throws {
        let f = try await ComponentFixture()
        let result = await f.completed { c, done in c.reply(to: "disconnect", completion: done) }
        #expect(try result.get() == false)
        #expect(try await f.gotNoReply())
    }

    @Test("a reply with JSON text to an event never received is ignored")
    func replyToMessageNotReceivedWithJsonDataIgnoresTheReply() async throws {
        let f = try await ComponentFixture()
        let result = await f.completed { c, done in c.reply(to: "disconnect", with: "{\"title\":\"Page-title\"}", completion: done) }
        #expect(try result.get() == false)
        #expect(try await f.gotNoReply())
    }

    @Test("reply(with:) succeeds while the session lives: the page gets the message")
    func replyWithSucceedsWhenBridgeIsSet() async throws {
        let f = try await ComponentFixture()
        let newMessage = ComponentFixture.message.replacing(jsonData: "{\"title\":\"Page-title\"}")
        let result = await f.completed { c, done in c.reply(with: newMessage, completion: done) }
        #expect(try result.get() == true)
        #expect(try await f.pageReceived(newMessage))
    }

    @Test("the async reply API answers as the completion one: true, then false for an unknown event")
    func asyncReplies() async throws {
        let f = try await ComponentFixture()
        let (sent, ignored) = try await onComponents {
            (try await f.component.reply(to: "connect", with: "{\"n\":1}"), try await f.component.reply(to: "nothing"))
        }
        #expect(sent && !ignored)
        #expect(try await f.nextReply()?["data"] == ["n": 1])
    }
}

@Suite("Message: replacing, decoding and equality (PROTOCOL.md 9.4)")
struct BridgeMessageTests {
    @Test("replacing keeps the id, so the reply reaches the same page callback")
    func replacingKeepsIdentity() {
        let m = ComponentFixture.message.replacing(event: "submit", jsonData: "{}")
        #expect(m.id == "1" && m.component == "one" && m.event == "submit" && m.jsonData == "{}")
        #expect(m.metadata?.url == "https://37signals.com")
    }

    @Test("data() decodes the JSON data; data that does not decode is nil")
    func decodesData() {
        struct Title: Decodable { let title: String }
        let title: Title? = ComponentFixture.message.data()
        #expect(title?.title == "Page-title")
        let wrong: MessageData? = ComponentFixture.message.data()
        #expect(wrong == nil)
    }

    @Test("messages whose data differ only in member order are equal; other data is not")
    func equalityIgnoresMemberOrder() {
        let reordered = ComponentFixture.message.replacing(jsonData: "{\"subtitle\":\"Page-subtitle\",\"title\":\"Page-title\"}")
        #expect(reordered == ComponentFixture.message)
        #expect(ComponentFixture.message.replacing(jsonData: "{\"title\":\"x\"}") != ComponentFixture.message)
    }

    @Test("a reply whose data is not a JSON object is refused before it is sent")
    func replyDataMustBeAnObject() async throws {
        let f = try await ComponentFixture()
        for bad in ["[1]", "not json", "5"] {
            await #expect(throws: BridgeComponentError.dataNotAJSONObject(bad)) {
                try await onComponents { try await f.component.reply(to: "connect", with: bad) }
            }
        }
        #expect(try await f.gotNoReply())
    }
}

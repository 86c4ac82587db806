// SPDX-License-Identifier: MIT

/// The server side of a Hotwire Native bridge component (PROTOCOL.md 9.4), shaped like
/// hotwire-native-ios' `BridgeComponent` so that a component ports with little change:
/// subclass it, override ``name`` and ``onReceive(message:)``, reply with ``reply(to:)`` and
/// its variants, and register the class with ``Bridge/register(component:)``.
///
/// One instance per component per page session, made when the page's first message to it
/// arrives and dropped when the session ends. What differs from the app: there are no view
/// lifecycle callbacks (no view), and components run on ``BridgeComponentActor``, not the
/// main actor.
///
/// ```swift
/// final class FormComponent: BridgeComponent {
///     override class var name: String { "form" }
///     override func onReceive(message: Message) {
///         if message.event == "connect" { reply(to: "connect") }  // the page clicks submit
///     }
/// }
/// ```
@BridgeComponentActor
open class BridgeComponent {
    /// The result of a reply made with a completion handler: whether it was sent.
    public typealias ReplyCompletionHandler = @BridgeComponentActor (Result<Bool, any Error>) -> Void

    /// How many events' last messages a component remembers; a message of one more event
    /// makes it forget the event received least recently.
    public nonisolated static let maxRememberedEvents = 64

    /// The component's name, as the page's controller names it (`static component = "form"`).
    /// Subclasses must override it; registration refuses the empty default.
    open nonisolated class var name: String { "" }

    /// Where replies go: the page session's bridge (`nil` once the session has ended).
    public weak var delegate: (any BridgingDelegate)?
    /// The page this instance serves.
    public let destination: BridgeDestination

    private var receivedMessages: [String: Message] = [:]
    /// The reply made last from synchronous code; the next one waits for it.
    private var lastReply: Task<Void, Never>?
    /// Events with a remembered message, least recently received first.
    private var eventOrder: [String] = []

    /// Made by the server on the page's first message to ``name``: `destination` is the page
    /// session, `delegate` its channel (held weakly here). Subclasses that override it call it.
    public required init(destination: BridgeDestination, delegate: any BridgingDelegate) {
        self.destination = destination
        self.delegate = delegate
    }

    /// Handles a message from the page's component of the same name. Override it; the
    /// default ignores the message (it is remembered all the same).
    open func onReceive(message: Message) {}

    /// Remembers `message` as the last of its event, then passes it to
    /// ``onReceive(message:)``. The server calls it; tests may too.
    public func didReceive(message: Message) {
        if receivedMessages.updateValue(message, forKey: message.event) != nil {
            eventOrder.removeAll { $0 == message.event }
        } else if eventOrder.count >= Self.maxRememberedEvents {
            receivedMessages[eventOrder.removeFirst()] = nil
        }
        eventOrder.append(message.event)
        onReceive(message: message)
    }

    /// The last message received for `event`, if any.
    public func receivedMessage(for event: String) -> Message? {
        receivedMessages[event]
    }

    /// The events with a remembered message, least recently received first.
    public var receivedEvents: [String] { eventOrder }

    /// Replies to the page with `message` (a received one, possibly with its event or data
    /// replaced): the page's callback for `message.id` runs with it.
    /// - Returns: `true` once sent, `false` when there is no delegate or the session ended.
    /// - Throws: ``BridgeComponentError`` for data that is not a JSON object or too large.
    @discardableResult
    public func reply(with message: Message) async throws -> Bool {
        guard let delegate else {
            destination.session?.bridge.logger.warning("bridge component \(Self.name): no delegate, reply to \(message.event) dropped")
            return false
        }
        return try await delegate.reply(with: message)
    }

    /// Replies to the last message received for `event`, with its own data.
    /// - Returns: `false` when no `event` message was received (nothing is sent).
    @discardableResult
    public func reply(to event: String) async throws -> Bool {
        guard let message = receivedMessage(for: event) else { return false }
        return try await reply(with: message)
    }

    /// Replies to the last message received for `event` with `jsonData` (the text of a JSON
    /// object) as its data.
    @discardableResult
    public func reply(to event: String, with jsonData: String) async throws -> Bool {
        guard let message = receivedMessage(for: event) else { return false }
        return try await reply(with: message.replacing(jsonData: jsonData))
    }

    /// Replies to the last message received for `event` with `data` encoded as its data.
    @discardableResult
    public func reply<T: Encodable>(to event: String, with data: T) async throws -> Bool {
        guard let message = receivedMessage(for: event) else { return false }
        return try await reply(with: message.replacing(data: data))
    }

    /// ``reply(with:)`` from synchronous code; `completion` gets its result.
    public func reply(with message: Message, completion: ReplyCompletionHandler? = nil) {
        complete(completion) { try await $0.reply(with: message) }
    }

    /// ``reply(to:)`` from synchronous code; `completion` gets its result.
    public func reply(to event: String, completion: ReplyCompletionHandler? = nil) {
        complete(completion) { try await $0.reply(to: event) }
    }

    /// ``reply(to:with:)`` (JSON text) from synchronous code; `completion` gets its result.
    public func reply(to event: String, with jsonData: String, completion: ReplyCompletionHandler? = nil) {
        complete(completion) { try await $0.reply(to: event, with: jsonData) }
    }

    /// ``reply(to:with:)`` (`Encodable`) from synchronous code; `completion` gets its result.
    public func reply<T: Encodable>(to event: String, with data: T, completion: ReplyCompletionHandler? = nil) {
        // Encoded now, on this actor: the task below carries only the message.
        guard let message = receivedMessage(for: event) else {
            completion?(.success(false))
            return
        }
        reply(with: message.replacing(data: data), completion: completion)
    }

    /// Runs `work` in a task on this actor and hands its result to `completion`, after the
    /// work of every earlier call: replies made one after another reach the page in that order.
    /// (Tasks on one actor need not start in the order they were made; each waits for the one
    /// made before it.)
    private func complete(
        _ completion: ReplyCompletionHandler?, _ work: @escaping @BridgeComponentActor (BridgeComponent) async throws -> Bool
    ) {
        let previous = lastReply
        lastReply = Task { @BridgeComponentActor in
            await previous?.value
            do {
                // Bound first: `completion?(…)` alone would skip the work when there is no completion.
                let sent = try await work(self)
                completion?(.success(sent))
            } catch {
                completion?(.failure(error))
            }
        }
    }
}

// SPDX-License-Identifier: MIT

/// A message between a page's bridge component and the server's component of the same name
/// (PROTOCOL.md 9.4): hotwire-native-ios' `Message`, with the same fields and helpers.
public struct Message: Sendable, Equatable, CustomStringConvertible {
    /// The id the page's bridge gave the message; a reply carries it back to the page's
    /// callback.
    public let id: String
    /// The component the message is sent from (`"form"`, `"menu"`).
    public let component: String
    /// What the message is about (`"connect"`, `"display"`, `"submitDisabled"`).
    public let event: String
    /// The page's metadata: the URL the message was sent from.
    public let metadata: Metadata?
    /// The message's data as the text of a JSON object (`metadata` included, as sent).
    public let jsonData: String

    /// A message with these fields (the server reads the page's; tests and replies make them).
    public init(id: String, component: String, event: String, metadata: Metadata?, jsonData: String) {
        self.id = id
        self.component = component
        self.event = event
        self.metadata = metadata
        self.jsonData = jsonData
    }

    /// The page's metadata of a message.
    public struct Metadata: Sendable, Equatable {
        /// `window.location.href` of the page when it sent the message.
        public let url: String

        /// Metadata naming the page at `url`.
        public init(url: String) {
            self.url = url
        }
    }

    /// `component#event (message id): data`, for logs.
    public var description: String { "\(component)#\(event) (message \(id)): \(jsonData)" }

    /// A copy with `event` and/or `jsonData` replaced (omitted: kept); the id stays, so the
    /// copy replies to the same page callback.
    public func replacing(event updatedEvent: String? = nil, jsonData updatedData: String? = nil) -> Message {
        Message(id: id, component: component, event: updatedEvent ?? event, metadata: metadata, jsonData: updatedData ?? jsonData)
    }

    /// A copy with its data replaced by `data` encoded as JSON (and `event` when given). Data
    /// that does not encode keeps the message's own data, as the app's `Message` does.
    public func replacing<T: Encodable>(event updatedEvent: String? = nil, data: T) -> Message {
        let encoded = try? JSONValueCoding.encode(data)
        return replacing(event: updatedEvent, jsonData: encoded.map(JSONWriter.string))
    }

    /// The data decoded as `T`, or `nil` when it does not decode.
    public func data<T: Decodable>() -> T? {
        guard let value = try? JSONParser.parse(jsonData) else { return nil }
        return try? JSONValueCoding.decode(T.self, from: value)
    }

    /// Equal when every field is and the data are the same JSON, whatever the order of
    /// their members (two texts of one object compare equal, as in the app).
    public static func == (lhs: Message, rhs: Message) -> Bool {
        lhs.id == rhs.id && lhs.component == rhs.component && lhs.event == rhs.event && lhs.metadata == rhs.metadata
            && sameJSON(lhs.jsonData, rhs.jsonData)
    }

    private static func sameJSON(_ a: String, _ b: String) -> Bool {
        guard let x = try? JSONParser.parse(a), let y = try? JSONParser.parse(b) else { return a == b }
        return unordered(x) == unordered(y)
    }

    /// `value` with every object's members sorted by key.
    private static func unordered(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            var sorted = JSONObject()
            for key in members.keys.sorted() { sorted[key] = members[key].map(unordered) }
            return .object(sorted)
        case .array(let items): return .array(items.map(unordered))
        default: return value
        }
    }
}

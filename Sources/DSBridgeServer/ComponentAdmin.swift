// SPDX-License-Identifier: MIT
import DSBridge

/// The answers of the component admin routes (PROTOCOL.md 9.4), for a session of this node.
enum ComponentAdmin {
    /// `GET /admin/sessions/ID/components`: 200 `{"session": ID, "components": {NAME: {EVENT:
    /// MESSAGE}}}`, names sorted, events least recently received first.
    @BridgeComponentActor
    static func list(_ session: BridgeSession) -> JSONValue {
        var components = JSONObject()
        let instances = session.bridgeComponents
        for name in instances.keys.sorted() {
            guard let component = instances[name] else { continue }
            var events = JSONObject()
            for event in component.receivedEvents {
                if let message = component.receivedMessage(for: event) { events[event] = wire(message) }
            }
            components[name] = .object(events)
        }
        return ["session": .string(session.id), "components": .object(components)]
    }

    /// `POST /admin/sessions/ID/components/NAME/reply`: replies to the last `request.event`
    /// message of component `name`, its data replaced when the request has data.
    @BridgeComponentActor
    static func reply(_ session: BridgeSession, component name: String, _ request: ComponentReplyRequest) async -> (
        status: Int, body: JSONValue
    ) {
        guard session.bridge.registry.bridgeComponents.names.contains(name) else {
            return (404, ["error": .string("no bridge component \"\(name.prefix(200))\" is registered")])
        }
        guard let component = session.bridgeComponents[name], let received = component.receivedMessage(for: request.event) else {
            return (404, ["error": .string("component \"\(name.prefix(200))\" received no \"\(request.event.prefix(200))\" message in this session")])
        }
        let message = request.data.map { received.replacing(jsonData: JSONWriter.string($0)) } ?? received
        do {
            guard try await component.reply(with: message) else { return (410, ["error": "session ended"]) }
            return (200, ["replied": wire(message)])
        } catch let error as BridgeComponentError {
            if case .tooLarge = error { return (413, ["error": .string(error.description)]) }
            return (400, ["error": .string(error.description)])
        } catch {
            return (500, ["error": .string(String(describing: error))])
        }
    }

    /// A message as the routes show it: `{"id", "component", "event", "data"}`.
    static func wire(_ message: Message) -> JSONValue {
        let data = (try? JSONParser.parse(message.jsonData)) ?? .string(message.jsonData)
        return ["id": .string(message.id), "component": .string(message.component), "event": .string(message.event), "data": data]
    }
}

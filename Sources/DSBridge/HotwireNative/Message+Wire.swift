// SPDX-License-Identifier: MIT

/// The message as it rides the channel (PROTOCOL.md 9.4): `{"id", "component", "event",
/// "data"}`, data a JSON object holding `metadata.url`.
extension Message {
    /// Reads a message the page's bridge sent (`_hotwire.receive`).
    /// - Throws: ``ExposedCallError`` `badArgument` naming what is missing.
    init(wire value: JSONValue) throws(ExposedCallError) {
        guard case .object(let o) = value, case .string(let id)? = o["id"], case .string(let component)? = o["component"],
            case .string(let event)? = o["event"]
        else {
            throw ExposedCallError(
                kind: .badArgument,
                message: "_hotwire.receive needs {\"id\": string, \"component\": string, \"event\": string, \"data\": object}, got \(value.kindName)")
        }
        let data = o["data"] ?? .object([:])
        guard case .object = data else {
            throw ExposedCallError(kind: .badArgument, message: "_hotwire.receive: data must be an object, got \(data.kindName)")
        }
        let url = data["metadata"]?["url"]?.stringValue
        self.init(id: id, component: component, event: event, metadata: url.map(Metadata.init(url:)), jsonData: JSONWriter.string(data))
    }

    /// The reply as the page's bridge receives it (`_hotwire.reply`).
    /// - Throws: ``BridgeComponentError/dataNotAJSONObject(_:)``.
    func wireValue() throws(BridgeComponentError) -> JSONValue {
        guard let data = try? JSONParser.parse(jsonData), case .object = data else { throw .dataNotAJSONObject(jsonData) }
        return ["id": .string(id), "component": .string(component), "event": .string(event), "data": data]
    }
}

// SPDX-License-Identifier: MIT
import DSBridge

/// The admin routes of a session's bridge components (PROTOCOL.md 9.4), recognised from the
/// path's segments. Pure: no I/O.
enum ComponentAdminRoute: Equatable {
    /// `GET /admin/sessions/ID/components`: each component's last message per event.
    case list(session: String)
    /// `POST /admin/sessions/ID/components/NAME/reply`: a reply to the last message of an event.
    case reply(session: String, component: String)

    /// The route of the path `segments` (percent-decoded, empty ones left out), or `nil`.
    init?(segments: [Substring]) {
        guard segments.count >= 4, segments[0] == "admin", segments[1] == "sessions", segments[3] == "components" else { return nil }
        switch segments.count {
        case 4: self = .list(session: String(segments[2]))
        case 6 where segments[5] == "reply": self = .reply(session: String(segments[2]), component: String(segments[4]))
        default: return nil
        }
    }

    /// The session the route names.
    var session: String {
        switch self {
        case .list(let session), .reply(let session, _): return session
        }
    }

    /// The `Allow` header's value for the route.
    var allowedMethods: String {
        if case .list = self { return "GET, HEAD" }
        return "POST"
    }

    /// Whether `method` is one the route takes (`HEAD` answers as `GET`).
    func allows(_ method: HTTPMethod) -> Bool {
        if case .list = self { return method == .get || method == .head }
        return method == .post
    }
}

/// The body of `POST /admin/sessions/ID/components/NAME/reply`: `{"event": E, "data": …}`.
struct ComponentReplyRequest: Equatable {
    /// The event whose last message is replied to.
    let event: String
    /// The reply's data (a JSON object); `nil` keeps the message's own.
    let data: JSONValue?

    /// Reads a request body; a malformed one is a violation whose reason the 400 answer says.
    init(body: [UInt8]) throws(ProtocolViolation) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(body)
        } catch {
            throw ProtocolViolation("body is not JSON: send {\"event\": string, \"data\": object}")
        }
        guard case .object(let o) = value else { throw ProtocolViolation("body must be an object {\"event\": string, \"data\": object}") }
        guard case .string(let event)? = o["event"] else { throw ProtocolViolation("event must be a string (the event of the message to reply to)") }
        self.event = event
        switch o["data"] {
        case .none, .some(.null): data = nil
        case .some(.object(let members)): data = .object(members)
        case .some(let other): throw ProtocolViolation("data must be an object (the page reads its members), got \(other.kindName)")
        }
    }
}

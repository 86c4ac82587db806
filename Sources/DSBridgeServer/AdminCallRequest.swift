// SPDX-License-Identifier: MIT
import DSBridge

/// The body of `POST /admin/sessions/ID/call` and `POST /admin/groups/TAG/call`
/// (PROTOCOL.md 6): `{"method":NAME,"args":[…],"timeoutMs":MS}`.
public struct AdminCallRequest: Sendable, Equatable {
    public var method: String
    public var args: [JSONValue]
    /// Positive; above 300000 is clamped; 30000 when absent.
    public var timeoutMs: Int
    /// The caller's W3C trace context (its `traceparent` header): the call's `invoke` span
    /// continues that trace (tracing on; this node's sessions).
    public var trace: TraceContext?

    public init(method: String, args: [JSONValue] = [], timeoutMs: Int = 30_000) {
        self.method = method
        self.args = args
        self.timeoutMs = timeoutMs
    }

    /// Reads a request body; a malformed one is a violation whose reason the 400 answer says.
    public init(body: [UInt8]) throws(ProtocolViolation) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(body)
        } catch {
            throw ProtocolViolation("body is not JSON")
        }
        guard case .object(let o) = value else { throw ProtocolViolation("body must be an object") }
        guard case .string(let method)? = o["method"] else { throw ProtocolViolation("method must be a string") }
        self.method = method
        switch o["args"] {
        case .none, .some(.null): args = []
        case .some(.array(let a)): args = a
        default: throw ProtocolViolation("args must be an array")
        }
        switch o["timeoutMs"] {
        case .none: timeoutMs = 30_000
        case .some(let t):
            guard let ms = Self.clampedTimeout(t) else { throw ProtocolViolation("timeoutMs must be a positive integer") }
            timeoutMs = ms
        }
    }

    /// A positive integral number, clamped to 300000 (PROTOCOL.md 6): also one beyond 64
    /// bits (`1e20`, `9223372036854775808`), which is above the clamp all the same.
    private static func clampedTimeout(_ value: JSONValue) -> Int? {
        if let ms = value.integerValue { return ms > 0 ? Int(min(ms, 300_000)) : nil }
        guard let d = value.doubleValue, d.isFinite, d.rounded(.towardZero) == d, d > 0 else { return nil }
        return 300_000
    }
}

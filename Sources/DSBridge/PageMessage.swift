// SPDX-License-Identifier: MIT

/// A message from the page (PROTOCOL.md 2.1, 2.2).
public enum PageMessage: Sendable, Equatable {
    /// Opens or resumes a session.
    case hello(Hello)
    /// Calls a native method.
    case call(Call)
    /// Cancels a running asynchronous call.
    case cancel(id: Int64)
    /// Acknowledges every server message up to `seq`.
    case ack(seq: Int64)

    public struct Hello: Sendable, Equatable {
        public var version: Int64
        public var token: String?
        public var ack: Int64
        public var auth: String?

        public init(version: Int64 = 1, token: String? = nil, ack: Int64 = 0, auth: String? = nil) {
            self.version = version
            self.token = token
            self.ack = ack
            self.auth = auth
        }
    }

    public struct Call: Sendable, Equatable {
        public var id: Int64
        public var method: String
        /// The `arg` field as sent (`nil` when omitted).
        public var arg: JSONValue?

        public init(id: Int64, method: String, arg: JSONValue?) {
            self.id = id
            self.method = method
            self.arg = arg
        }
    }
}

/// Why a frame from the page was refused as a whole; the socket closes with 4000 and this
/// text as the reason (PROTOCOL.md 2, 2.5).
public struct ProtocolViolation: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Turns one text frame from the page into messages, checking the frame as a whole
/// before any of its messages runs (PROTOCOL.md 2).
public struct PageFrameDecoder: Sendable {
    /// Deepest nesting accepted (the frame's top-level value is level 1).
    public var maxDepth: Int

    public init(maxDepth: Int = 128) {
        self.maxDepth = maxDepth
    }

    /// Decodes a frame.
    /// - Parameter helloSeen: whether this socket already had its `hello`; a first frame
    ///   must start with `hello`, and a second `hello` anywhere is a violation.
    public func decode(_ bytes: some Collection<UInt8>, helloSeen: Bool) throws(ProtocolViolation) -> [PageMessage] {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maxDepth: maxDepth)
        } catch .tooDeep(let limit) {
            throw ProtocolViolation("nesting deeper than \(limit) levels")
        } catch {
            throw ProtocolViolation("not JSON")
        }
        var messages: [PageMessage]
        switch value {
        case .object(let members):
            messages = [try Self.message(members)]
        case .array(let elements):
            messages = []
            messages.reserveCapacity(elements.count)
            for e in elements {
                guard case .object(let members) = e else { throw ProtocolViolation("batch element is not an object") }
                messages.append(try Self.message(members))
            }
        default:
            throw ProtocolViolation("frame is not an object or an array")
        }
        var sawHello = helloSeen
        for (index, m) in messages.enumerated() {
            if case .hello = m {
                if sawHello { throw ProtocolViolation("second hello") }
                if index != 0 { throw ProtocolViolation("expected hello") }
                sawHello = true
            } else if !sawHello {
                throw ProtocolViolation("expected hello")
            }
        }
        return messages
    }

    static func message(_ m: JSONObject) throws(ProtocolViolation) -> PageMessage {
        guard let t = m["t"] else { throw ProtocolViolation("missing t") }
        guard case .string(let type) = t else { throw ProtocolViolation("t is not a string") }
        switch type {
        case "call":
            guard let id = m["id"]?.integerValue, id >= 1 else { throw ProtocolViolation("call needs an integer id >= 1") }
            guard case .string(let method)? = m["method"] else { throw ProtocolViolation("call needs a string method") }
            return .call(.init(id: id, method: method, arg: m["arg"]))
        case "ack":
            guard let seq = m["seq"]?.integerValue else { throw ProtocolViolation("ack needs an integer seq") }
            return .ack(seq: seq)
        case "cancel":
            guard let id = m["id"]?.integerValue else { throw ProtocolViolation("cancel needs an integer id") }
            return .cancel(id: id)
        case "hello":
            guard let v = m["v"] else { throw ProtocolViolation("hello needs v") }
            guard let version = v.integerValue, version == 1 else { throw ProtocolViolation("unsupported version") }
            var hello = PageMessage.Hello(version: version)
            if let token = m["token"] {
                guard case .string(let s) = token else { throw ProtocolViolation("token is not a string") }
                hello.token = s
            }
            if let auth = m["auth"] {
                guard case .string(let s) = auth else { throw ProtocolViolation("auth is not a string") }
                hello.auth = s
            }
            if let ack = m["ack"] {
                guard let a = ack.integerValue else { throw ProtocolViolation("ack is not an integer") }
                hello.ack = max(0, a)
            }
            return .hello(hello)
        default:
            throw ProtocolViolation("unknown t \"\(type.prefix(32))\"")
        }
    }
}

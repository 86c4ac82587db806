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

    /// Whether this is a call.
    var isCall: Bool {
        if case .call = self { return true }
        return false
    }

    // A call's fields, each read in place: binding the call (`case .call(let call)`, or a
    // `switch` over the message) copies all of it, about 150 bytes through its value witness,
    // and destroys the copy after (one retain and release more per call, and the copy).

    /// A call's method (`nil` for any other message).
    var callMethod: String? {
        switch self {
        case .call(let call): return call.method
        default: return nil
        }
    }

    /// A call's id (`nil` for any other message).
    var callID: Int64? {
        switch self {
        case .call(let call): return call.id
        default: return nil
        }
    }

    /// A call's `arg` as sent, with what the decoder noted of it (`nil` for any other message).
    var callArgument: CallArgument.Wire? {
        switch self {
        case .call(let call): return .raw(call.rawArg, envelope: call.envelope)
        default: return nil
        }
    }

    /// A call's trace context (`nil` for any other message, or a call without one).
    var callTrace: TraceContext? {
        switch self {
        case .call(let call): return call.trace
        default: return nil
        }
    }

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
        /// The `arg` field's text as sent (`nil` when omitted), parsed only when the call
        /// runs (``CallArgument``).
        public var rawArg: RawJSON?
        /// The page's W3C trace context (`traceparent`, PROTOCOL.md 2.2), when it sent a valid
        /// one: the call's span continues that trace.
        public var trace: TraceContext?
        /// Where `arg`'s `data` and `_dscbstub` are, when the frame's decoder read them on its
        /// way (``CallFrameFastPath``); otherwise they are found when the call runs.
        var envelope: CallArgument.Envelope?

        /// The `arg` field as a value (`nil` when omitted).
        public var arg: JSONValue? { rawArg?.parsedValue }

        public init(id: Int64, method: String, arg: JSONValue?) {
            self.init(id: id, method: method, rawArg: arg.map(RawJSON.init))
        }

        public init(id: Int64, method: String, rawArg: RawJSON?, trace: TraceContext? = nil) {
            self.init(id: id, method: method, rawArg: rawArg, trace: trace, envelope: nil)
        }

        init(id: Int64, method: String, rawArg: RawJSON?, trace: TraceContext?, envelope: CallArgument.Envelope?) {
            self.id = id
            self.method = method
            self.rawArg = rawArg
            self.trace = trace
            self.envelope = envelope
        }

        /// Equal when id, method and the *value* of `arg` are (not its spelling).
        public static func == (a: Call, b: Call) -> Bool {
            a.id == b.id && a.method == b.method && a.arg == b.arg
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

// SPDX-License-Identifier: MIT

/// Kinds of failure a page sees in `error.kind` (PROTOCOL.md 2.3).
public enum CallErrorKind: String, Sendable, Equatable {
    case methodNotFound
    case badArgument
    case failed
    case timeout
    case overloaded
}

/// A failed call as the page sees it: a kind (contract) and a message (for people).
public struct CallFailure: Error, Sendable, Equatable {
    public var kind: CallErrorKind
    public var message: String

    public init(_ kind: CallErrorKind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

/// A message from the server to the page (PROTOCOL.md 2.1, 2.3), without its `seq`.
public enum ServerMessage: Sendable, Equatable {
    case welcome(session: String, token: String, lastCall: Int64, resumed: Bool, heartbeatMs: Int)
    /// The answer to a call: a value, or a failure.
    case ret(id: Int64, result: Result<JSONValue, CallFailure>)
    /// A completion for a page callback.
    case cb(stub: String, payload: CallbackPayload)
    /// A native-initiated call of a JavaScript method.
    case invoke(callbackId: Int64, method: String, args: [JSONValue])
    case heartbeat

    /// What a `cb` carries.
    public enum CallbackPayload: Sendable, Equatable {
        case value(JSONValue, complete: Bool)
        case failure(CallFailure)
        case cancelled
    }

    /// Whether the message is numbered and kept for replay (`ret`, `cb`, `invoke`).
    package var isSequenced: Bool {
        switch self {
        case .ret, .cb, .invoke: return true
        case .welcome, .heartbeat: return false
        }
    }

    /// The exact JSON bytes of the message; `seq` is written for sequenced messages.
    public func encoded(seq: Int64) -> [UInt8] {
        // Exact unless a string needs escapes or a number is not an integer: then the
        // bounded writer gives up and a growing one writes it.
        let size = estimatedSize(seq: seq)
        if let bytes = JSONBoundedWriter.bytes(capacity: size, { encode(seq: seq, into: &$0) }) { return bytes }
        var w = JSONWriter(capacity: size + 64)
        encode(seq: seq, into: &w)
        return w.bytes
    }

    /// Writes the message's JSON text into `w`.
    private func encode(seq: Int64, into w: inout some JSONOutput) {
        switch self {
        case .welcome(let session, let token, let lastCall, let resumed, let heartbeatMs):
            w.raw("{\"t\":\"welcome\",\"session\":")
            w.write(string: session)
            w.raw(",\"token\":")
            w.write(string: token)
            w.raw(",\"lastCall\":")
            w.write(integer: lastCall)
            w.raw(resumed ? ",\"resumed\":true,\"heartbeat\":" : ",\"resumed\":false,\"heartbeat\":")
            w.write(integer: Int64(heartbeatMs))
            w.raw("}")
        case .ret(let id, let result):
            w.raw("{\"t\":\"ret\",\"seq\":")
            w.write(integer: seq)
            w.raw(",\"id\":")
            w.write(integer: id)
            w.raw(",")
            Self.writeOutcome(result, into: &w)
            w.raw("}")
        case .cb(let stub, let payload):
            w.raw("{\"t\":\"cb\",\"seq\":")
            w.write(integer: seq)
            w.raw(",\"stub\":")
            w.write(string: stub)
            switch payload {
            case .value(let data, let complete):
                w.raw(",\"data\":")
                w.write(data)
                w.raw(complete ? ",\"complete\":true}" : ",\"complete\":false}")
            case .failure(let failure):
                w.raw(",\"complete\":true,")
                Self.writeError(failure, into: &w)
                w.raw("}")
            case .cancelled:
                w.raw(",\"complete\":true,\"cancelled\":true}")
            }
        case .invoke(let callbackId, let method, let args):
            w.raw("{\"t\":\"invoke\",\"seq\":")
            w.write(integer: seq)
            w.raw(",\"callbackId\":")
            w.write(integer: callbackId)
            w.raw(",\"method\":")
            w.write(string: method)
            w.raw(",\"args\":")
            w.write(.array(args))
            w.raw("}")
        case .heartbeat:
            w.raw("{\"t\":\"hb\"}")
        }
    }

    /// Bytes to reserve for the encoding: its fixed text, numbers and strings as
    /// ``JSONWriter/estimatedSize(of:)`` counts them, so encoding allocates once.
    func estimatedSize(seq: Int64) -> Int {
        let seqDigits = JSONWriter.digitCount(seq)
        switch self {
        case .welcome(let session, let token, let lastCall, _, let heartbeatMs):
            return 81 + session.utf8.count + token.utf8.count + JSONWriter.digitCount(lastCall)
                + JSONWriter.digitCount(Int64(heartbeatMs))
        case .ret(let id, .success(let data)):
            return 41 + seqDigits + JSONWriter.digitCount(id) + JSONWriter.estimatedSize(of: data)
        case .ret(let id, .failure(let failure)):
            return 91 + seqDigits + JSONWriter.digitCount(id) + failure.message.utf8.count
        case .cb(let stub, .value(let data, _)):
            return 52 + seqDigits + stub.utf8.count + JSONWriter.estimatedSize(of: data)
        case .cb(let stub, .failure(let failure)):
            return 90 + seqDigits + stub.utf8.count + failure.message.utf8.count
        case .cb(let stub, .cancelled):
            return 60 + seqDigits + stub.utf8.count
        case .invoke(let callbackId, let method, let args):
            return 55 + seqDigits + JSONWriter.digitCount(callbackId) + method.utf8.count
                + JSONWriter.estimatedSize(of: .array(args))
        case .heartbeat:
            return 10
        }
    }

    /// Writes a call's outcome as its answer carries it (a `ret`, a sync call's 200 body):
    /// `"code":0,"data":…` or `"code":-1,"data":"","error":{"kind":…,"message":…}`.
    static func writeOutcome(_ result: Result<JSONValue, CallFailure>, into w: inout some JSONOutput) {
        switch result {
        case .success(let data):
            w.raw("\"code\":0,\"data\":")
            w.write(data)
        case .failure(let failure):
            w.raw("\"code\":-1,\"data\":\"\",")
            writeError(failure, into: &w)
        }
    }

    /// Writes `"error":{"kind":…,"message":…}`.
    static func writeError(_ failure: CallFailure, into w: inout some JSONOutput) {
        w.raw("\"error\":{\"kind\":")
        w.write(string: failure.kind.rawValue)
        w.raw(",\"message\":")
        w.write(string: failure.message)
        w.raw("}")
    }
}

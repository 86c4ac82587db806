// SPDX-License-Identifier: MIT

/// A page's answer to a native-initiated call, as `_dsb.returnValue` brings it
/// (`{"id": callbackId, "data": ..., "complete": bool}`, or with an `error`).
struct ReturnValueAnswer: Sendable, Equatable {
    /// The `callbackId` of the invoke it answers.
    let callbackId: Int64
    /// What it brings the call's handler.
    let event: NativeCallEvent

    /// Whether it ends the call.
    var isFinal: Bool {
        if case .progress = event { return false }
        return true
    }

    init(callbackId: Int64, event: NativeCallEvent) {
        self.callbackId = callbackId
        self.event = event
    }

    /// Reads the call's `data`; `nil` when it is not such an answer (no integer `id`).
    init?(_ data: JSONValue) {
        guard case .object(let o) = data, let callbackId = o["id"]?.integerValue else { return nil }
        self.callbackId = callbackId
        if let e = o["error"], !e.isNull {
            event = .failed(.javaScript(e.stringValue ?? JSONWriter.string(e)))
        } else if o["complete"]?.boolValue ?? true {
            event = .completed(o["data"] ?? .null)
        } else {
            event = .progress(o["data"] ?? .null)
        }
    }

    /// The answer a socket call of `_dsb.returnValue` carries in its raw argument (as the
    /// call's run reads it), or `nil`.
    init?(rawArgument raw: RawJSON?) {
        guard let raw, let wire = try? raw.value(), let argument = try? CallArgument(wire: wire) else { return nil }
        self.init(argument.data)
    }
}

/// Cluster mode: a page's answer to a native call made on another node, passed to that node
/// by the journal write that accepts the answer (docs/CLUSTER.md, rule 1's exception): the
/// answer reaches its caller if and only if its acceptance may be durable, so a node lost in
/// between loses neither. `pageCall`, the id of the page's `_dsb.returnValue` call, lets the
/// caller drop the same answer passed twice (a write fenced by a move publishes it, and the
/// page sends it again to the new owner).
public struct PassedAnswer: Sendable, Equatable {
    /// The call's origin, `NODE|REF`.
    public let origin: String
    /// The answer.
    public let event: NativeCallEvent
    /// The page's call that brought it.
    public let pageCall: Int64

    public init(origin: String, event: NativeCallEvent, pageCall: Int64) {
        self.origin = origin
        self.event = event
        self.pageCall = pageCall
    }
}

// SPDX-License-Identifier: MIT

/// Cluster mode: the page's calls that may run before their acceptance is durable
/// (docs/CLUSTER.md, the exception to rule 1). Running one of them twice changes nothing a
/// page or a caller sees, so it need not wait a journal round:
///
/// - `_dsb.returnValue`, a progress or a final answer: an answer for a call made on another
///   node goes to that node with the journal write of its acceptance, ahead of it (so one
///   is never durable without the other); if the node is lost before that write, the page
///   resends the answer to the new owner, which passes it on. The origin delivers an answer
///   once per page call (``NativeCallOrigins/admit(ref:pageCall:)``), so a write fenced by a
///   move, whose answers went out, does not make the caller see one twice.
/// - `_dsb.hasNativeMethod` and `_dsb.disableJavascriptDialogBlock`: they change nothing.
/// - methods their interface marks `@idempotent`: by that mark, a second run shows nothing
///   the first did not; the page sees one answer either way (answers reach it only once
///   journaled, with or after the call's acceptance).
///
/// A frame's calls run ahead only when all of them may (and, in the session, nothing waits
/// at the gate before them), so the session's calls keep their order.
enum RunAheadCalls {
    /// Whether every call among `messages` may run before its acceptance is durable; their
    /// methods are resolved in `registry`, as dispatch resolves them.
    static func allowed(_ messages: ArraySlice<PageMessage>, in registry: InterfaceRegistry) -> Bool {
        var any = false
        for message in messages {
            guard case .call(let call) = message else { continue }
            guard allowed(call, in: registry) else { return false }
            any = true
        }
        return any
    }

    /// Whether `call` may run before its acceptance is durable.
    static func allowed(_ call: PageMessage.Call, in registry: InterfaceRegistry) -> Bool {
        guard let resolved = try? registry.cachedRoute(of: call.method) else { return false }
        switch resolved.route {
        case .internalMethod(.returnValue): return true
        case .internalMethod(.hasNativeMethod), .internalMethod(.disableJavascriptDialogBlock): return true
        case .internalMethod(.dsinit), .internalMethod(.closePage): return false
        case .synchronous, .asynchronous: return resolved.isIdempotent
        }
    }
}

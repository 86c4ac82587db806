// SPDX-License-Identifier: MIT

/// Cluster mode: the page's calls that may run before their acceptance is durable
/// (docs/CLUSTER.md, the exception to rule 1). Running one of them twice changes nothing a
/// page or a caller sees, so it need not wait a journal round:
///
/// - `_dsb.returnValue` with a **final** answer (`complete` not false, or an `error`): if
///   the node is lost before the acceptance is written, the page resends it to the new
///   owner, which passes the answer to the call's origin once more; the origin keeps only
///   the first final answer of a call (its handler leaves with it), so the caller sees one.
///   Progress answers still wait: a second one would reach the caller.
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
        case .internalMethod(.returnValue): return isFinalAnswer(call.rawArg)
        case .internalMethod(.hasNativeMethod), .internalMethod(.disableJavascriptDialogBlock): return true
        case .internalMethod(.dsinit), .internalMethod(.closePage): return false
        case .synchronous, .asynchronous: return resolved.isIdempotent
        }
    }

    /// A `_dsb.returnValue` argument that ends its native call, read as
    /// ``BridgeSession`` reads it: `{"data": {"id": N, ...}}` (or that object as a JSON
    /// string) with an `error`, or with `complete` not false. The usual object form is
    /// scanned without building values (this runs on the network thread for every answer).
    private static func isFinalAnswer(_ raw: RawJSON?) -> Bool {
        guard let raw else { return false }
        let scanned = raw.bytes.withUnsafeBufferPointer { text -> Bool? in
            var s = JSONScanner(text, maxDepth: .max)
            s.skipWhitespace()
            guard s.peek == UInt8(ascii: "{") else { return nil }  // a string: parsed below
            var data: Range<Int>?
            guard (try? s.members(depth: 1, { name, range in if name.is("data") { data = range } })) != nil,
                let data
            else { return false }
            return isFinalAnswerObject(UnsafeBufferPointer(rebasing: text[data]))
        }
        if let scanned { return scanned }
        guard let wire = try? raw.value(), let argument = try? CallArgument(wire: wire),
            case .object(let o) = argument.data, o["id"]?.integerValue != nil
        else { return false }
        if let error = o["error"], !error.isNull { return true }
        return o["complete"]?.boolValue ?? true
    }

    /// `{"id": N, "complete": ..., "error": ...}` (the `data` of a returnValue): whether it is
    /// final. Only a progress answer (`complete` false, no `error`) must never be taken for
    /// one; an answer that will fail anyway (a bad `id`) may run ahead: it changes nothing.
    private static func isFinalAnswerObject(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var s = JSONScanner(text, maxDepth: .max)
        s.skipWhitespace()
        guard s.peek == UInt8(ascii: "{") else { return false }
        var hasID = false
        var complete = true
        var error = false
        func isWord(_ range: Range<Int>, _ word: StaticString) -> Bool {
            let n = word.utf8CodeUnitCount
            guard range.count == n else { return false }
            for i in 0..<n where text[range.lowerBound + i] != word.utf8Start[i] { return false }
            return true
        }
        let read: ()? = try? s.members(depth: 1) { name, range in
            if name.is("id") {
                hasID = true
            } else if name.is("complete") {
                complete = !isWord(range, "false")
            } else if name.is("error") {
                error = !isWord(range, "null")
            }
        }
        guard read != nil, hasID else { return false }
        return error || complete
    }
}

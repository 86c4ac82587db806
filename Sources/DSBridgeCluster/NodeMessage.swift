// SPDX-License-Identifier: MIT
import DSBridge

/// What nodes say to each other on their channels (docs/CLUSTER.md, "Node messages"): small
/// JSON objects whose `t` names the kind. Pure: encoded and decoded without Redis.
enum NodeMessage: Sendable, Equatable {
    /// Run a native-initiated call in session `session`; answers go to `origin` (`NODE|REF`).
    /// `args`: the text of a JSON array, passed to the page as it is.
    case call(session: String, method: String, args: RawJSON, timeoutMs: Int, origin: String)
    /// An answer for the call `ref` of the receiving node; `call`: the page's
    /// `_dsb.returnValue` call that brought it (an answer passed twice is dropped by it).
    case answer(ref: Int64, event: NativeCallEvent, call: Int64? = nil)
    /// The call `ref` was not started: the session is not on the sending node (`status`:
    /// 404 unknown, 503 draining, ``awaitingPageStatus``: a session of the node's former
    /// process, waiting for its page).
    case refused(ref: Int64, status: Int)
    /// List your sessions for request `req` of node `from`.
    case list(req: Int64, from: String)
    /// The sessions of node `node` for request `req`.
    case listed(req: Int64, node: String, sessions: [JSONValue])
    /// Call `sessions` (yours) for group request `req` of node `from`.
    case group(req: Int64, from: String, sessions: [String], method: String, args: [JSONValue], timeoutMs: Int)
    /// One result per session for group request `req`: `{"session","node","status","body"}`.
    case grouped(req: Int64, results: [JSONValue])
    /// Run a sync HTTP call (`POST /dsbridge/call`) for request `req` of node `from`: the
    /// token, the body and `X-DSBridge-After` as the page sent them.
    case sync(req: Int64, from: String, token: String, body: String, after: String?, traceparent: String? = nil)
    /// The answer of sync request `req`: the 200 body, or `nil` for an unknown token.
    case synced(req: Int64, body: String?)
    /// Make `count` native-initiated calls of `method` into session `session` from the
    /// receiving node (load tests of calls across nodes: `cluster.pushInvokes`).
    case push(session: String, method: String, args: [JSONValue], count: Int)
    /// The recent calls of session `session` (the admin page's detail) for request `req` of
    /// node `from`.
    case trace(req: Int64, from: String, session: String)
    /// The answer to trace request `req`: `GET /admin/sessions/ID/calls`'s body, or `nil`
    /// when the session is not on the answering node.
    case traced(req: Int64, body: JSONValue?)
    /// Asks a node for its `/metrics` text (the admin page of another node).
    case metrics(req: Int64, from: String)
    /// The answer: the text, `nil` without a metrics backend.
    case metricsText(req: Int64, text: String?)
    /// Session `session` moved to another node.
    case moved(session: String)
    /// Session `session` has late messages.
    case late(session: String)

    /// The status of a refusal for a session that waits for its page (its node was started
    /// again since it held it).
    static let awaitingPageStatus = 409

    func encoded() -> [UInt8] {
        var o: JSONObject
        switch self {
        case .answer(let ref, let event, let call):
            return Self.encodedAnswer(ref: ref, event, call: call)
        case .call(let session, let method, let args, let timeoutMs, let origin):
            return Self.encodedCall(session: session, method: method, args: args, timeoutMs: timeoutMs, origin: origin)
        case .refused(let ref, let status):
            o = ["t": "refused", "ref": .integer(ref), "status": .integer(Int64(status))]
        case .list(let req, let from):
            o = ["t": "list", "req": .integer(req), "from": .string(from)]
        case .listed(let req, let node, let sessions):
            o = ["t": "listed", "req": .integer(req), "node": .string(node), "sessions": .array(sessions)]
        case .group(let req, let from, let sessions, let method, let args, let timeoutMs):
            o = [
                "t": "group", "req": .integer(req), "from": .string(from), "sessions": .array(sessions.map { .string($0) }),
                "method": .string(method), "args": .array(args), "timeoutMs": .integer(Int64(timeoutMs)),
            ]
        case .grouped(let req, let results):
            o = ["t": "grouped", "req": .integer(req), "results": .array(results)]
        case .sync(let req, let from, let token, let body, let after, let traceparent):
            o = [
                "t": "sync", "req": .integer(req), "from": .string(from), "token": .string(token), "body": .string(body),
                "after": after.map(JSONValue.string) ?? .null,
            ]
            if let traceparent { o["traceparent"] = .string(traceparent) }
        case .synced(let req, let body):
            o = ["t": "synced", "req": .integer(req), "body": body.map(JSONValue.string) ?? .null]
        case .push(let session, let method, let args, let count):
            o = [
                "t": "push", "session": .string(session), "method": .string(method), "args": .array(args),
                "count": .integer(Int64(count)),
            ]
        case .trace(let req, let from, let session):
            o = ["t": "trace", "req": .integer(req), "from": .string(from), "session": .string(session)]
        case .metrics(let req, let from):
            o = ["t": "metrics", "req": .integer(req), "from": .string(from)]
        case .metricsText(let req, let text):
            o = ["t": "metricsText", "req": .integer(req), "text": text.map(JSONValue.string) ?? .null]
        case .traced(let req, let body):
            o = ["t": "traced", "req": .integer(req), "body": body ?? .null]
        case .moved(let session):
            o = ["t": "moved", "session": .string(session)]
        case .late(let session):
            o = ["t": "late", "session": .string(session)]
        }
        return JSONWriter.bytes(.object(o))
    }

    /// An `answer`, written straight out (one per native call across nodes): the same text
    /// as the object form, `{"t":"answer","ref":N,KIND:VALUE}`.
    private static func encodedAnswer(ref: Int64, _ event: NativeCallEvent, call: Int64?) -> [UInt8] {
        var w = JSONWriter(capacity: 64)
        w.raw(#"{"t":"answer","ref":"#)
        w.write(integer: ref)
        if let call {
            w.raw(#","call":"#)
            w.write(integer: call)
        }
        switch event {
        case .progress(let v):
            w.raw(#","progress":"#)
            w.write(v)
        case .completed(let v):
            w.raw(#","completed":"#)
            w.write(v)
        case .failed(.javaScript(let text)):
            w.raw(#","javaScript":"#)
            w.write(string: text)
        case .failed(.sessionEnded):
            w.raw(#","failed":"sessionEnded""#)
        case .failed(.timeout):
            w.raw(#","failed":"timeout""#)
        case .failed(.tooLarge(let bytes)):
            w.raw(#","tooLarge":"#)
            w.write(integer: Int64(bytes))
        }
        w.raw("}")
        return w.bytes
    }

    /// A `call`, written straight out (one per native call across nodes), its `args` as
    /// they are.
    private static func encodedCall(session: String, method: String, args: RawJSON, timeoutMs: Int, origin: String) -> [UInt8] {
        var w = JSONWriter(capacity: 96 + args.bytes.count)
        w.raw(#"{"t":"call","session":"#)
        w.write(string: session)
        w.raw(#","method":"#)
        w.write(string: method)
        w.raw(#","args":"#)
        w.raw(args)
        w.raw(#","timeoutMs":"#)
        w.write(integer: Int64(timeoutMs))
        w.raw(#","origin":"#)
        w.write(string: origin)
        w.raw("}")
        return w.bytes
    }

    /// The messages of a `PUBLISH` payload: one message, or a JSON array of them
    /// (``NodeMessageBatch``), each `nil` where it could not be read; `nil` when the payload
    /// is neither.
    static func messages(in payload: [UInt8]) -> [NodeMessage?]? {
        payload.withUnsafeBufferPointer { text -> [NodeMessage?]? in
            if let elements = JSONObjectReader.elements(of: text) {
                return elements.map { decode(UnsafeBufferPointer(rebasing: text[$0])) }
            }
            guard let members = JSONObjectReader.members(of: text) else { return nil }
            return [decode(members, in: text)]
        }
    }

    init?(decoding bytes: [UInt8]) {
        guard let message = bytes.withUnsafeBufferPointer(Self.decode) else { return nil }
        self = message
    }

    /// The message that is the whole of `text`.
    private static func decode(_ text: UnsafeBufferPointer<UInt8>) -> NodeMessage? {
        JSONObjectReader.members(of: text).flatMap { decode($0, in: text) }
    }

    /// The message whose members were read from `text`. `call` and `answer` (one each per
    /// native call across nodes) are read without building the object, a call's `args` kept
    /// as text; the other kinds are parsed.
    private static func decode(_ members: [(name: String, value: Range<Int>)], in text: UnsafeBufferPointer<UInt8>) -> NodeMessage? {
        // A repeated member: the last one counts, as when parsed.
        func member(_ name: String) -> Range<Int>? { members.last { $0.name == name }?.value }
        func string(_ name: String) -> String? { member(name).flatMap { JSONObjectReader.string($0, in: text) } }
        func int(_ name: String) -> Int64? { member(name).flatMap { JSONObjectReader.integer($0, in: text) } }
        func value(_ name: String) -> JSONValue? { member(name).flatMap { JSONObjectReader.value($0, in: text) } }
        switch string("t") {
        case "call"?:
            guard let s = string("session"), let m = string("method"), let a = member("args"), text[a.lowerBound] == UInt8(ascii: "["),
                let ms = int("timeoutMs"), let origin = string("origin")
            else { return nil }
            return .call(session: s, method: m, args: JSONObjectReader.raw(a, in: text), timeoutMs: Int(ms), origin: origin)
        case "answer"?:
            guard let ref = int("ref") else { return nil }
            let call = int("call")
            if let v = value("progress") { return .answer(ref: ref, event: .progress(v), call: call) }
            if let v = value("completed") { return .answer(ref: ref, event: .completed(v), call: call) }
            if let text = string("javaScript") { return .answer(ref: ref, event: .failed(.javaScript(text)), call: call) }
            if let bytes = int("tooLarge") { return .answer(ref: ref, event: .failed(.tooLarge(bytes: Int(bytes))), call: call) }
            switch string("failed") {
            case "sessionEnded"?: return .answer(ref: ref, event: .failed(.sessionEnded), call: call)
            case "timeout"?: return .answer(ref: ref, event: .failed(.timeout), call: call)
            default: return nil
            }
        case nil:
            return nil
        default:
            return JSONObjectReader.value(0..<text.count, in: text).flatMap(NodeMessage.init(other:))
        }
    }

    /// The kinds other than `call` and `answer`, from their parsed object.
    private init?(other value: JSONValue) {
        guard case .object(let o) = value, let t = o["t"]?.stringValue else { return nil }
        func string(_ k: String) -> String? { o[k]?.stringValue }
        func int(_ k: String) -> Int64? { o[k]?.integerValue }
        func array(_ k: String) -> [JSONValue]? { if case .array(let a)? = o[k] { a } else { nil } }
        switch t {
        case "refused":
            guard let ref = int("ref"), let status = int("status") else { return nil }
            self = .refused(ref: ref, status: Int(status))
        case "list":
            guard let req = int("req"), let from = string("from") else { return nil }
            self = .list(req: req, from: from)
        case "listed":
            guard let req = int("req"), let node = string("node"), let s = array("sessions") else { return nil }
            self = .listed(req: req, node: node, sessions: s)
        case "group":
            guard let req = int("req"), let from = string("from"), let s = array("sessions"), let m = string("method"),
                let a = array("args"), let ms = int("timeoutMs")
            else { return nil }
            self = .group(req: req, from: from, sessions: s.compactMap(\.stringValue), method: m, args: a, timeoutMs: Int(ms))
        case "grouped":
            guard let req = int("req"), let r = array("results") else { return nil }
            self = .grouped(req: req, results: r)
        case "sync":
            guard let req = int("req"), let from = string("from"), let token = string("token"), let body = string("body")
            else { return nil }
            self = .sync(req: req, from: from, token: token, body: body, after: string("after"), traceparent: string("traceparent"))
        case "synced":
            guard let req = int("req") else { return nil }
            self = .synced(req: req, body: string("body"))
        case "push":
            guard let s = string("session"), let m = string("method"), let a = array("args"), let n = int("count") else { return nil }
            self = .push(session: s, method: m, args: a, count: Int(n))
        case "trace":
            guard let req = int("req"), let from = string("from"), let s = string("session") else { return nil }
            self = .trace(req: req, from: from, session: s)
        case "metrics":
            guard let req = int("req"), let from = string("from") else { return nil }
            self = .metrics(req: req, from: from)
        case "metricsText":
            guard let req = int("req") else { return nil }
            self = .metricsText(req: req, text: string("text"))
        case "traced":
            guard let req = int("req"), let body = o["body"] else { return nil }
            self = .traced(req: req, body: body.isNull ? nil : body)
        case "moved":
            guard let s = string("session") else { return nil }
            self = .moved(session: s)
        case "late":
            guard let s = string("session") else { return nil }
            self = .late(session: s)
        default:
            return nil
        }
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Synchronization

/// Pure parts of the admin API (PROTOCOL.md 6): token check, session listing, and
/// native-initiated calls answered as HTTP.
enum AdminAPI {
    static func bearerMatches(_ header: String, _ token: String) -> Bool {
        let prefix = "Bearer "
        guard header.hasPrefix(prefix) else { return false }
        let given = Array(header.dropFirst(prefix.count).utf8)
        let expected = Array(token.utf8)
        guard given.count == expected.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<given.count { diff |= given[i] ^ expected[i] }
        return diff == 0
    }

    /// The listing of `sessions` (PROTOCOL.md 6); `node`: this node's name in a cluster,
    /// added to each entry.
    static func sessionList(_ sessions: [BridgeSession], node: String? = nil) -> [JSONValue] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return sessions.map { s in
            var entry: JSONObject = [
                "session": .string(s.id),
                "connected": .bool(s.isConnected),
                "ready": .bool(s.isReady),
                "origin": s.origin.map(JSONValue.string) ?? .null,
                "since": .string(formatter.string(from: s.createdAt)),
                "queued": .integer(Int64(s.queuedCount)),
                "calls": .integer(Int64(s.callsMade)),
            ]
            if let node { entry["node"] = .string(node) }
            return .object(entry)
        }
    }

    /// Calls `request.method` on the page and answers once it completes, fails or times out.
    static func call(_ session: BridgeSession, _ request: AdminCallRequest, answer: @escaping @Sendable (HTTPAnswer) -> Void) {
        callAnswering(session, request) { reply in answer(.json(reply.status, reply.body)) }
    }

    /// ``call(_:_:answer:)`` answering an ``AdminReply`` (group calls collect them).
    static func callAnswering(_ session: BridgeSession, _ request: AdminCallRequest, answer: @escaping @Sendable (AdminReply) -> Void) {
        // The session times the call out: at its timeout it forgets the call (a later
        // answer from the page is ignored, a call still held is never delivered). `answer`
        // hands the reply on without blocking, so the thread that reads the page's answer
        // runs the handler (no hop through a worker).
        session.callJavaScript(
            request.method, args: request.args, timeout: .milliseconds(request.timeoutMs), origin: nil, answersInline: true,
            trace: request.trace, handler: AdminCallAnswer.handler(answer: answer))
    }

    /// How long a look at a session's calls keeps its trace on (the admin page asks again
    /// every few seconds while it shows the session).
    static let traceWatchMs: Int64 = 60_000

    /// `GET /admin/sessions/ID/calls`: the session's recent calls, newest first; each look
    /// keeps recording them for ``traceWatchMs`` more.
    static func recentCalls(_ session: BridgeSession, node: String?) -> JSONValue {
        session.trace.watch(forMilliseconds: traceWatchMs, now: session.bridge.executor.uptimeMilliseconds)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        var body: JSONObject = [
            "session": .string(session.id),
            "watchingForMs": .integer(traceWatchMs),
            "calls": .array(
                session.trace.recent.map { e in
                    [
                        "at": .string(formatter.string(from: Date(timeIntervalSince1970: Double(e.atMs) / 1000))),
                        "method": .string(e.method), "outcome": .string(e.outcome),
                        "micros": e.microseconds.map { .integer($0) } ?? .null,
                    ]
                }),
        ]
        if let node { body["node"] = .string(node) }
        return .object(body)
    }

    /// `POST /admin/groups/TAG/call` for the sessions of this node with `tag`: one result
    /// per session (`{"session","node","status","body"}`), in no particular order.
    static func groupCall(
        _ sessions: [BridgeSession], node: String?, _ request: AdminCallRequest,
        answer: @escaping @Sendable ([JSONValue]) -> Void
    ) {
        guard !sessions.isEmpty else { return answer([]) }
        let results = Mutex<[JSONValue]>([])
        for session in sessions {
            callAnswering(session, request) { reply in
                var entry: JSONObject = ["session": .string(session.id), "status": .integer(Int64(reply.status)), "body": reply.body]
                if let node { entry["node"] = .string(node) }
                let done = results.withLock { r -> [JSONValue]? in
                    r.append(.object(entry))
                    return r.count == sessions.count ? r : nil
                }
                if let done { answer(done) }
            }
        }
    }
}

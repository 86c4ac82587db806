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

    static func sessionList(_ sessions: [BridgeSession]) -> JSONValue {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return .array(
            sessions.map { s in
                [
                    "session": .string(s.id),
                    "connected": .bool(s.isConnected),
                    "ready": .bool(s.isReady),
                    "origin": s.origin.map(JSONValue.string) ?? .null,
                    "since": .string(formatter.string(from: s.createdAt)),
                    "queued": .integer(Int64(s.queuedCount)),
                ]
            })
    }

    struct CallRequest: Sendable {
        var method: String
        var args: [JSONValue]
        var timeoutMs: Int

        init(body: [UInt8]) throws(ProtocolViolation) {
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
                guard let ms = t.integerValue, ms > 0 else { throw ProtocolViolation("timeoutMs must be a positive integer") }
                timeoutMs = Int(min(ms, 300_000))
            }
        }
    }

    /// Calls `request.method` on the page and answers once it completes, fails or times out.
    static func call(_ session: BridgeSession, _ request: CallRequest, answer: @escaping @Sendable (HTTPAnswer) -> Void) {
        let progress = Mutex<[JSONValue]>([])
        let once = Atomic<Bool>(false)
        let finish: @Sendable (Int, JSONObject) -> Void = { status, fields in
            guard !once.exchange(true, ordering: .acquiringAndReleasing) else { return }
            var body = fields
            if status != 404 && status != 400 && status != 503 {
                body["progress"] = .array(progress.withLock { $0 })
            }
            answer(.json(status, .object(body)))
        }
        // The session times the call out: at its timeout it forgets the call (a later
        // answer from the page is ignored, a call still held is never delivered).
        session.callJavaScript(request.method, args: request.args, timeout: .milliseconds(request.timeoutMs)) { event in
            switch event {
            case .progress(let value):
                progress.withLock { $0.append(value) }
            case .completed(let value):
                finish(200, ["data": value])
            case .failed(.javaScript(let text)):
                finish(422, ["error": .string(text)])
            case .failed(.sessionEnded):
                finish(410, ["error": "session ended"])
            case .failed(.timeout):
                finish(504, ["error": "timeout"])
            case .failed(.tooLarge):
                finish(413, ["error": "call too large"])
            }
        }
    }
}

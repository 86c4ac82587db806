// SPDX-License-Identifier: MIT
import DSBridge
import Synchronization

/// How a native-initiated call made for the admin API is answered (PROTOCOL.md 6): 200
/// `{"data","progress"}` once it completes, 422 with the page's error, 410 when the session
/// ended, 504 at the timeout, 413 when the call is too large; `progress` lists the
/// `complete:false` values in order. Exactly one answer per call.
public enum AdminCallAnswer {
    /// A handler that collects progress and gives `answer` the one final reply.
    public static func handler(answer: @escaping @Sendable (AdminReply) -> Void) -> NativeCallHandler {
        let progress = Mutex<[JSONValue]>([])
        let once = Atomic<Bool>(false)
        return { event in
            if case .progress(let value) = event {
                progress.withLock { $0.append(value) }
                return
            }
            guard !once.exchange(true, ordering: .acquiringAndReleasing) else { return }
            var reply = final(event)
            if case .object(var body) = reply.body {
                body["progress"] = .array(progress.withLock { $0 })
                reply.body = .object(body)
            }
            answer(reply)
        }
    }

    /// The reply for a final event (without `progress`).
    static func final(_ event: NativeCallEvent) -> AdminReply {
        switch event {
        case .progress: return AdminReply(status: 500, body: ["error": "not final"])
        case .completed(let value): return AdminReply(status: 200, body: ["data": value])
        case .failed(.javaScript(let text)): return AdminReply(status: 422, body: ["error": .string(text)])
        case .failed(.sessionEnded): return AdminReply(status: 410, body: ["error": "session ended"])
        case .failed(.timeout): return AdminReply(status: 504, body: ["error": "timeout"])
        case .failed(.tooLarge): return AdminReply(status: 413, body: ["error": "call too large"])
        }
    }
}

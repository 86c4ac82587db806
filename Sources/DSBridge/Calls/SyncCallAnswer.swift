// SPDX-License-Identifier: MIT
import Synchronization

/// The answer of a sync HTTP call started on the network thread: there at once, or handed
/// to whoever asks ``whenAnswered(_:)`` once it comes.
public final class SyncCallAnswer: Sendable {
    private enum State {
        case waiting
        case answered(Result<JSONValue, CallFailure>)
        case forwarding(@Sendable (Result<JSONValue, CallFailure>) -> Void)
        case done
    }
    private let state = Mutex<State>(.waiting)
    /// The session whose memory count holds the call's body until the answer comes.
    private let holder: BridgeSession?
    private let bodyBytes: Int

    /// An answer to wait for; `bodyBytes` of `holder`'s memory count are given back when it
    /// comes (``BridgeSession/syncCallOnNetworkThread(_:)``).
    init(holding bodyBytes: Int = 0, of holder: BridgeSession? = nil) {
        self.holder = holder
        self.bodyBytes = bodyBytes
    }

    /// The answer, if it came.
    var result: Result<JSONValue, CallFailure>? {
        state.withLock { s in
            if case .answered(let r) = s { return r }
            return nil
        }
    }

    func deliver(_ result: Result<JSONValue, CallFailure>) {
        holder?.holdSyncBody(-bodyBytes)
        let forward = state.withLock { s -> (@Sendable (Result<JSONValue, CallFailure>) -> Void)? in
            switch s {
            case .waiting:
                s = .answered(result)
                return nil
            case .forwarding(let body):
                s = .done
                return body
            case .answered, .done:
                return nil
            }
        }
        forward?(result)
    }

    /// Calls `body` with the answer (at once if it already came), once.
    public func whenAnswered(_ body: @escaping @Sendable (Result<JSONValue, CallFailure>) -> Void) {
        let ready = state.withLock { s -> Result<JSONValue, CallFailure>? in
            switch s {
            case .waiting:
                s = .forwarding(body)
                return nil
            case .answered(let r):
                s = .done
                return r
            case .forwarding, .done:
                return nil
            }
        }
        if let ready { body(ready) }
    }
}

/// A flag that can be claimed once, from any thread.
final class OnceFlag: Sendable {
    private let claimed = Atomic<Bool>(false)
    func claim() -> Bool { !claimed.exchange(true, ordering: .acquiringAndReleasing) }
}

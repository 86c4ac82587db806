// SPDX-License-Identifier: MIT
import Synchronization

/// The life of one running asynchronous call: completions that arrive before its `ret` is
/// queued are held back, so the page always sees `ret` first (PROTOCOL.md 2.3); nothing
/// is forwarded after the final completion.
final class AsyncCall: Sendable {
    enum Phase: Sendable { case starting, running, finished }

    /// What to do with a completion.
    enum Disposition: Sendable, Equatable {
        /// Held until the call has its `ret`.
        case held
        /// Dropped: the call is over.
        case ignored
        /// Send it now; `final` says the call is over with it.
        case forward(final: Bool)
    }

    /// How the start of the call ended.
    enum Start: Sendable {
        /// The method refused its argument before doing anything: answer with this failure.
        case refused(CallFailure)
        /// The method runs: answer `""`, then send these completions.
        case started([ServerMessage.CallbackPayload], finished: Bool)
    }

    struct State: Sendable {
        var phase = Phase.starting
        var held: [ServerMessage.CallbackPayload] = []
        var refusal: CallFailure?
    }

    /// The page callback, or `nil` for a fire-and-forget call.
    let stub: String?
    /// The socket call's id (`nil` for a sync HTTP call), for `cancel`.
    let callID: Int64?
    /// Whether it counts toward `maxAsyncCalls` (socket calls do; sync HTTP calls do not,
    /// PROTOCOL.md 2.4).
    let counted: Bool
    /// The call's span, ended with its final completion (only while tracing is on).
    let span: OpenPageSpan?
    private let state = Mutex(State())

    init(stub: String?, callID: Int64?, counted: Bool = true, span: OpenPageSpan? = nil) {
        self.stub = stub
        self.callID = callID
        self.counted = counted
        self.span = span
    }

    /// How a call that ended with `final` ended: its outcome and final value (`nil`: `final`
    /// does not end it).
    static func ending(of final: ServerMessage.CallbackPayload?) -> (outcome: String, value: JSONValue?)? {
        switch final {
        case .value(let value, complete: true)?: return ("ok", value)
        case .failure(let failure)?: return (failure.kind.rawValue, nil)
        case .cancelled?: return ("cancelled", nil)
        case .value?, nil: return nil
        }
    }

    /// Whether the call still runs (started and not finished).
    var isRunning: Bool { state.withLock { $0.phase == .running } }

    /// Ends a running call by cancellation; true when it was still running.
    func cancel() -> Bool {
        state.withLock { s in
            guard s.phase == .running else { return false }
            s.phase = .finished
            return true
        }
    }

    static func isFinal(_ payload: ServerMessage.CallbackPayload) -> Bool {
        if case .value(_, let complete) = payload { return complete }
        return true
    }

    /// Routes one completion.
    func accept(_ payload: ServerMessage.CallbackPayload) -> Disposition {
        state.withLock { s in
            switch s.phase {
            case .finished:
                return .ignored
            case .starting:
                if let last = s.held.last, Self.isFinal(last) { return .ignored }
                s.held.append(payload)
                return .held
            case .running:
                let final = Self.isFinal(payload)
                if final { s.phase = .finished }
                return .forward(final: final)
            }
        }
    }

    /// Records that the method refused its argument; true when that happened before it
    /// delivered anything or was answered, so the refusal becomes the call's `ret`.
    func refuseIfStarting(_ failure: CallFailure) -> Bool {
        state.withLock { s in
            guard s.phase == .starting, s.held.isEmpty else { return false }
            s.refusal = failure
            return true
        }
    }

    /// Ends the starting phase (the method ran up to its first suspension).
    func finishStarting() -> Start {
        state.withLock { s in
            if let refusal = s.refusal {
                s.phase = .finished
                return .refused(refusal)
            }
            let held = s.held
            s.held.removeAll()
            let finished = held.last.map(Self.isFinal) ?? false
            s.phase = finished ? .finished : .running
            return .started(held, finished: finished)
        }
    }
}

// SPDX-License-Identifier: MIT

/// How the messages of one page frame are dispatched, decided message by message as a
/// value: whether a `hello` attaches here or takes a session over from another node, and
/// whether a call runs now, goes to a worker because the frame used up the network thread's
/// budget, waits for the session's call rate, or first passes the journal's gate.
///
/// ``BridgeConnection`` is the shell: it makes one per dispatch of a frame (or of what is
/// left of one), asks it about each message and does what it says. The clock and the call
/// rate are passed in with each call (`now`, `rateWait`), asked only when the decision
/// needs them: the clock only on the network thread, once per call; the rate once per
/// frame, at its first call, counting every call of the rest of the frame.
struct FrameDispatch {
    /// What to do with a frame's `hello`.
    enum HelloDecision: Sendable, Equatable {
        /// Attach here: find or create the session (``SessionReconnect``).
        case attach
        /// The token names a session this node does not hold (cluster mode): the journal
        /// takes it over, then the frame is dispatched again from its hello.
        case takeOver
    }

    /// What to do with a frame's next call.
    enum CallDecision: Sendable, Equatable {
        /// Run it in line, on the thread dispatching the frame.
        case inline
        /// The frame used up the network thread's budget: hand it and the rest of the
        /// frame to a worker (their calls were already counted against the rate).
        case handOff
        /// Over the session's call rate: it and the rest of the frame wait this long.
        case waitRate(milliseconds: Int)
        /// Journaled session: its acceptance must be durable first; the gate runs it (now,
        /// or when the journal answers).
        case waitJournal
    }

    /// The frame is dispatched on the network thread (`@nonblocking` calls run there).
    let onNetworkThread: Bool
    /// Cluster mode: sessions are journaled and may be taken over from other nodes.
    let clustered: Bool
    /// How long the network thread may spend on one frame's calls.
    let budgetNanoseconds: UInt64
    /// The calls have yet to be counted against the session's rate.
    private(set) var checksRate: Bool
    /// The calls' acceptance is known to be durable (or not needed).
    private(set) var journalChecked: Bool
    /// The authenticator accepted the hello already (before a takeover).
    let authorized: Bool
    /// When the frame's first call started on the network thread.
    private(set) var inlineStarted: UInt64 = 0
    /// A call of this frame ran on the network thread.
    private(set) var ranInline = false

    /// - Parameters:
    ///   - checksRate: count the calls against the session's rate (not when they already
    ///     were: after a rate wait or a journal round).
    ///   - journalChecked: their acceptance is durable (after the journal's gate).
    ///   - authorized: the hello was authorized already (after a takeover).
    init(
        onNetworkThread: Bool, clustered: Bool, checksRate: Bool = true, journalChecked: Bool = false, authorized: Bool = false,
        budgetNanoseconds: Int64 = InlineDispatchPolicy.budgetNanoseconds
    ) {
        self.onNetworkThread = onNetworkThread
        self.clustered = clustered
        self.checksRate = checksRate
        self.journalChecked = journalChecked
        self.authorized = authorized
        self.budgetNanoseconds = UInt64(max(0, budgetNanoseconds))
    }

    /// A `hello` resuming `token` (a hello without one always attaches). `isHeldHere`
    /// tells whether this node holds the session of a token; asked only in cluster mode,
    /// for a hello not authorized yet.
    func hello(resuming token: String, isHeldHere: (String) -> Bool) -> HelloDecision {
        guard !authorized, clustered, !isHeldHere(token) else { return .attach }
        return .takeOver
    }

    /// The next call. `hasSession`: the frame's hello (or an earlier one) attached a
    /// session. `now`: the monotonic clock in nanoseconds. `rateWait`: counts the calls
    /// from this one to the frame's end against the session's rate and returns how many
    /// milliseconds they must wait (0: none).
    mutating func call(hasSession: Bool, now: () -> UInt64, rateWait: () -> Int) -> CallDecision {
        // A frame of many quick calls may still add up: past the budget, the rest of it
        // goes to a worker (the clock is read once per call there, and not at all for a
        // frame of acks).
        if onNetworkThread {
            let time = now()
            if !ranInline {
                inlineStarted = time
            } else if hasSession, time &- inlineStarted > budgetNanoseconds {
                return .handOff
            }
        }
        if checksRate, hasSession {
            checksRate = false
            let wait = rateWait()
            if wait > 0 { return .waitRate(milliseconds: wait) }
        }
        ranInline = onNetworkThread
        if !journalChecked, hasSession, clustered {
            journalChecked = true
            return .waitJournal
        }
        return .inline
    }
}

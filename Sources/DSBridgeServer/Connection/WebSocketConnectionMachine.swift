// SPDX-License-Identifier: MIT

/// The WebSocket side of one page connection after its upgrade, as a machine without
/// sockets: the timing rules (``SocketLiveness``: hello timeout, pings, `hb`, the hang-up),
/// what the server writes next and in which order, and the close handshake. Its one
/// deadline is ``deadline``. ServiceLoop+WebSocket is its shell; the page's frames are read
/// by a ``WebSocketFrameReader`` beside it (``WebSocketState/reader``: the reader calls
/// back for each frame, and the shell tells this machine what the frame was).
struct WebSocketConnectionMachine {
    /// Where the connection is.
    enum State: Equatable {
        case open
        /// A close was decided (by the transport or the session): its frame goes out before
        /// anything else queued.
        case closeDecided(code: Int, reason: String)
        /// The close frame is written: input is read and dropped until the page closes too,
        /// or `until` (so that closing never resets a connection whose close frame the page
        /// has not read yet).
        case lingering(until: UInt64)
        case closed
    }

    /// What the shell writes next.
    enum Write: Equatable {
        /// The close frame (then ``closeFrameWritten(now:)``).
        case close(code: Int, reason: String)
        case pong([UInt8])
        case ping
    }

    /// What a deadline brought.
    enum DeadlineAction: Equatable {
        case none
        /// Something is due to be written (a ping, an `hb`): write at the end of the loop pass.
        case write
        /// No hello in time: close 4000.
        case helloTimedOut
        /// Drop the connection without a close handshake: 2 × heartbeat of silence, the end
        /// of lingering, or a decided close that could not get out.
        case drop(Drop)
    }

    /// Why a connection is dropped.
    enum Drop: Equatable {
        case silent
        case lingerEnded
        case closeStuck
    }

    private(set) var state: State = .open
    private(set) var liveness: SocketLiveness
    /// Reads are paused (backpressure of the session's calls).
    private(set) var readsPaused = false
    /// The payload of a pong owed to the page's ping.
    private var pongOwed: [UInt8]?
    private var pingDue = false
    private var heartbeatDue = false
    /// A decided close waits behind a frame the socket took only in part (a page that does
    /// not read): the connection is dropped at this time unless the close gets out first.
    private var closeCutoff: UInt64?

    init(now: UInt64, heartbeatMs: Int, helloTimeoutMs: Int) {
        liveness = SocketLiveness(openedAt: now, heartbeatMs: heartbeatMs, helloTimeoutMs: helloTimeoutMs)
    }

    /// How long a closed connection waits for the page to close its side, and a decided
    /// close for a half-written frame before it.
    static let lingerMs: UInt64 = 2_000

    /// The connection's one deadline: the next timing rule while open, the end of lingering,
    /// or the cutoff of a stuck close (`.max`: none).
    var deadline: UInt64 {
        switch state {
        case .open: min(liveness.nextDeadline, closeCutoff ?? .max)
        case .closeDecided: min(liveness.nextDeadline, closeCutoff ?? .max)
        case .lingering(let until): until
        case .closed: .max
        }
    }

    /// Input is read: while open and not paused, and always while lingering (it is dropped).
    var wantsInput: Bool {
        switch state {
        case .open, .closeDecided: !readsPaused
        case .lingering: true
        case .closed: false
        }
    }

    /// Frames from the page are acted on (not once a close is decided or sent).
    var takesFrames: Bool { state == .open }

    /// The close frame is written (the page's input is dropped).
    var isLingering: Bool {
        if case .lingering = state { return true }
        return false
    }

    /// Something is due to be written (the shell writes before the loop waits).
    var hasWriteDue: Bool {
        if case .closeDecided = state { return true }
        return pongOwed != nil || pingDue || heartbeatDue
    }

    // MARK: Events

    /// The page sent bytes (its frames go through ``reader``): it is alive.
    mutating func trafficArrived(now: UInt64) { liveness.received(at: now) }

    /// The page pinged: a pong with its payload is owed.
    mutating func pinged(_ payload: [UInt8]) { pongOwed = payload }

    /// The transport or the session decided to close with `code`: `false` when a close is
    /// already decided or sent (the first one stands).
    mutating func decideClose(code: Int, reason: String) -> Bool {
        guard state == .open else { return false }
        state = .closeDecided(code: code, reason: reason)
        return true
    }

    /// The session wants reads paused or resumed: `true` when that changed. Resuming counts
    /// as traffic (the silence while paused was ours).
    mutating func setReadsPaused(_ paused: Bool, now: UInt64) -> Bool {
        guard paused != readsPaused else { return false }
        readsPaused = paused
        liveness.setReadsPaused(paused, at: now)
        return true
    }

    /// The deadline may have passed; `awaitsHello`: the session has not had its hello.
    mutating func deadlinePassed(now: UInt64, awaitsHello: Bool) -> DeadlineAction {
        if let cutoff = closeCutoff, now >= cutoff { return drop(.closeStuck) }
        switch state {
        case .lingering(let until):
            return now >= until ? drop(.lingerEnded) : .none
        case .closed:
            return .none
        case .open, .closeDecided:
            let due = liveness.fire(at: now)
            if due.contains(.helloTimeout), awaitsHello, state == .open {
                state = .closeDecided(code: 4000, reason: "hello timeout")
                return .helloTimedOut
            }
            // 2 × heartbeat without a frame from the page: dropped without a close handshake
            // (a dead peer would not answer it).
            if due.contains(.hangUp) { return drop(.silent) }
            if due.contains(.ping) { pingDue = true }
            if due.contains(.heartbeat) { heartbeatDue = true }
            return due.contains(.ping) || due.contains(.heartbeat) ? .write : .none
        }
    }

    /// The socket has not taken all of an earlier frame: a decided close (or one the session
    /// asked for, `sessionCloses`) waits for it at most ``lingerMs``. `true` when that
    /// cutoff was armed now (the shell queues the deadline).
    mutating func blockedBehindPartialFrame(now: UInt64, sessionCloses: Bool) -> Bool {
        guard closeCutoff == nil else { return false }
        let closing: Bool
        switch state {
        case .closeDecided: closing = true
        case .open: closing = sessionCloses
        case .lingering, .closed: closing = false
        }
        guard closing else { return false }
        closeCutoff = now + Self.lingerMs
        return true
    }

    /// What goes out first, before the session's messages: a decided close, a pong owed,
    /// a due ping (so a page flooded with messages is still pinged). `nil`: the session's
    /// messages next, then ``takeHeartbeat()``.
    mutating func nextControlWrite() -> Write? {
        switch state {
        case .closeDecided(let code, let reason): return .close(code: code, reason: reason)
        case .lingering, .closed: return nil
        case .open: break
        }
        if let payload = pongOwed {
            pongOwed = nil
            return .pong(payload)
        }
        if pingDue {
            pingDue = false
            return .ping
        }
        return nil
    }

    /// A message of the session was written (pings excluded): no `hb` is due.
    mutating func wroteMessage(now: UInt64) {
        liveness.wrote(at: now)
        heartbeatDue = false
    }

    /// Nothing else was queued: whether an `hb` is to be written now (then ``wroteMessage(now:)``).
    mutating func takeHeartbeat() -> Bool {
        guard state == .open, heartbeatDue else { return false }
        heartbeatDue = false
        return true
    }

    /// A close frame is written (the one decided before, or one the shell decided now: a
    /// reader failure, the page's own close, the session's close): the connection lingers.
    mutating func closeFrameWritten(now: UInt64) {
        state = .lingering(until: now + Self.lingerMs)
        closeCutoff = nil
        pongOwed = nil
        pingDue = false
        heartbeatDue = false
    }

    /// The shell dropped the connection.
    mutating func closed() {
        state = .closed
        closeCutoff = nil
    }

    private mutating func drop(_ why: Drop) -> DeadlineAction {
        state = .closed
        closeCutoff = nil
        return .drop(why)
    }
}

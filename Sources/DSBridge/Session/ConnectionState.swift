// SPDX-License-Identifier: MIT

/// What one WebSocket holds on the bridge side, and every rule about how that changes, as
/// a value: frames read and not yet processed, whether a thread is processing them, why
/// reads are paused, control frames and the close to write.
///
/// Each mutating method makes one transition and returns what the caller must do after
/// unlocking (start a worker, wake the transport, run a frame here), with the bytes the
/// memory budget must count more or fewer (`memoryDelta`: the shell applies it; nothing
/// here touches ``MemoryBudget``). Nothing here blocks, schedules work or runs user code. ``BridgeConnection`` is the shell that holds this
/// under its lock. `Session` is the session type (``BridgeSession`` in the bridge; any
/// class in tests); only its identity is used here.
struct ConnectionState<Session: AnyObject & Sendable>: Sendable {
    /// Why reads of the socket are paused; any one pauses them.
    enum PauseReason: Sendable {
        /// The session has `maxCallsPending` unanswered calls: frames already read wait too.
        case calls
        /// Frames read but not yet processed exceed the inbox bound.
        case inbox
        /// The session's calls wait for its rate (`maxCallsPerSecond`).
        case rate
    }

    /// Frames and bytes read but not processed before reading pauses.
    struct InboxLimit: Sendable, Equatable {
        let frames: Int
        let bytes: Int
    }

    private(set) var inbox = CountedQueue<[UInt8]>()
    private(set) var inboxBytes = 0
    /// Bytes of a frame whose calls wait for the session's call rate.
    private(set) var rateWaitBytes = 0
    /// A thread is processing this socket's frames (in order, one at a time).
    private(set) var processing = false
    private(set) var helloSeen = false
    private(set) var session: Session?
    /// Frames written before the session's messages (the `welcome`).
    private var control = CountedQueue<[UInt8]>()
    /// A welcome waiting for the session's record to be durable (cluster mode).
    private var heldWelcome: [UInt8]?
    private(set) var close: (code: Int, reason: String)?
    private var closeTaken = false
    private var pausedForCalls = false
    private var pausedForInbox = false
    private var pausedForRate = false
    private(set) var socketClosed = false
    let inboxLimit: InboxLimit

    init(inboxLimit: InboxLimit) {
        self.inboxLimit = inboxLimit
    }

    var readsPaused: Bool { pausedForCalls || pausedForInbox || pausedForRate }
    /// Bytes read whose calls have not started (counted in the memory budget).
    var unprocessedBytes: Int { inboxBytes + rateWaitBytes }
    /// A frame is being processed or waits, or a control frame waits to be written.
    var isBusy: Bool { processing || !inbox.isEmpty || !control.isEmpty }
    /// A control frame or a close waits to be taken by the transport.
    var hasOwnOutput: Bool { !control.isEmpty || (close != nil && !closeTaken) }
    private var isOpen: Bool { close == nil && !socketClosed }

    // MARK: frames in

    /// What to do with a frame the transport read.
    enum Receipt: Sendable {
        /// The socket is closing: drop it.
        case dropped
        /// Nothing waits ahead of it: the calling thread may decode it and decide
        /// (``finishProcessing()`` when done).
        case first(Session)
        /// Queued. `startWorker`: no thread processes the inbox, start one;
        /// `pauseReads`: the inbox is over its bound, wake the transport to pause;
        /// `memoryDelta`: the frame's bytes, counted in the memory budget while it waits.
        case queued(startWorker: Bool, pauseReads: Bool, memoryDelta: Int)
    }

    /// A frame of `frame.count` bytes arrived. `mayRunFirst`: it is small enough for the
    /// calling thread to decode (``InlineDispatchPolicy/maxFrameBytes``).
    mutating func receive(_ frame: [UInt8], mayRunFirst: Bool) -> Receipt {
        if !isOpen { return .dropped }
        if !processing, inbox.isEmpty, !readsPaused, let session, mayRunFirst {
            processing = true
            return .first(session)
        }
        inbox.append(frame)
        inboxBytes += frame.count
        var pause = false
        if !pausedForInbox, inbox.count > inboxLimit.frames || inboxBytes > inboxLimit.bytes {
            pausedForInbox = true
            pause = true
        }
        if processing || pausedForCalls { return .queued(startWorker: false, pauseReads: pause, memoryDelta: frame.count) }
        processing = true
        return .queued(startWorker: true, pauseReads: pause, memoryDelta: frame.count)
    }

    /// The next frame for the processing thread, in order.
    struct NextFrame: Sendable {
        let frame: [UInt8]
        let helloSeen: Bool
        let session: Session?
        /// Taking it emptied an inbox that had paused reads: wake the transport to resume.
        let resumeReads: Bool
        /// The frame's bytes leave the memory budget (negative).
        var memoryDelta: Int { -frame.count }
    }

    /// Takes the next frame to process; `nil` ends the processing stretch (the inbox is
    /// empty, the socket is closing, or the session has `maxCallsPending` pending calls).
    mutating func takeFrame() -> NextFrame? {
        guard let next = takeQueuedFrame() else {
            processing = false
            return nil
        }
        return next
    }

    /// Takes the next queued frame for the thread already processing (a journaled session
    /// accepts the calls of frames queued behind one that waits); unlike ``takeFrame()`` it
    /// leaves `processing` as it is when none is left.
    mutating func takeQueuedFrame() -> NextFrame? {
        guard isOpen, !pausedForCalls, let frame = inbox.popFirst() else { return nil }
        inboxBytes -= frame.count
        var resume = false
        if pausedForInbox, inbox.isEmpty {
            pausedForInbox = false
            resume = !readsPaused
        }
        return NextFrame(frame: frame, helloSeen: helloSeen, session: session, resumeReads: resume)
    }

    /// Ends a stretch of processing the calling thread did itself.
    /// - Returns: whether to start a worker at once: frames arrived meanwhile and nothing
    ///   holds them (``resumeProcessing()``, in the same transition).
    mutating func finishProcessing() -> Bool {
        processing = false
        return resumeProcessing()
    }

    /// Starts processing again if frames wait and nothing holds them.
    /// - Returns: whether to start a worker.
    mutating func resumeProcessing() -> Bool {
        guard !processing, !pausedForCalls, !inbox.isEmpty, isOpen else { return false }
        processing = true
        return true
    }

    /// Pauses or resumes reads for `reason`.
    /// - Returns: whether the socket's read state changed (wake the transport).
    mutating func setPaused(_ reason: PauseReason, _ paused: Bool) -> Bool {
        let before = readsPaused
        switch reason {
        case .calls: pausedForCalls = paused
        case .inbox: pausedForInbox = paused
        case .rate: pausedForRate = paused
        }
        return before != readsPaused
    }

    /// A frame of `bytes` waits for the session's call rate.
    /// - Returns: the memory delta (its bytes, counted while it waits).
    mutating func startRateWait(bytes: Int) -> Int {
        rateWaitBytes = bytes
        return bytes
    }

    /// The rate wait is over. - Returns: whether the socket is still open to run it, and
    /// the memory delta (the frame's bytes given back).
    mutating func finishRateWait() -> (isOpen: Bool, memoryDelta: Int) {
        defer { rateWaitBytes = 0 }
        return (isOpen, -rateWaitBytes)
    }

    mutating func markHelloSeen() {
        helloSeen = true
    }

    // MARK: sessions

    /// Attaches `session` with its `welcome`. - Returns: `false` when the socket closed.
    /// `hold`: the welcome waits for ``releaseWelcome()`` (cluster mode: until the new
    /// session's record is durable, so the page cannot use a token no other node knows).
    mutating func adopt(_ session: Session, welcome: [UInt8], hold: Bool = false) -> Bool {
        if socketClosed { return false }
        self.session = session
        if hold { heldWelcome = welcome } else { control.append(welcome) }
        return true
    }

    /// Lets a held welcome go out. - Returns: whether there was one (wake the transport).
    mutating func releaseWelcome() -> Bool {
        guard let welcome = heldWelcome else { return false }
        heldWelcome = nil
        control.append(welcome)
        return true
    }

    /// Detaches `session` without closing (it ended or moved to another socket).
    mutating func dropSession(_ session: Session) {
        if self.session === session { self.session = nil }
    }

    // MARK: frames out

    mutating func enqueueControl(_ frame: [UInt8]) {
        control.append(frame)
    }

    /// A control frame to write now, else the session to ask for its messages.
    mutating func takeControl() -> (control: [UInt8]?, session: Session?) {
        if let c = control.popFirst() { return (c, nil) }
        // Nothing of the session goes out before its welcome.
        return (nil, heldWelcome == nil ? session : nil)
    }

    /// The close to perform, once, after everything before it was written.
    mutating func takeClose() -> (code: Int, reason: String)? {
        guard let close, !closeTaken else { return nil }
        closeTaken = true
        return close
    }

    /// A close was asked for (``requestClose(code:reason:)``).
    var closeRequested: Bool { close != nil }

    /// Asks for a close with `code`; frames not yet processed are dropped.
    /// - Returns: whether this was the first close asked for (wake the transport), and the
    ///   memory delta (the dropped frames' bytes given back).
    mutating func requestClose(code: Int, reason: String) -> (first: Bool, memoryDelta: Int) {
        if close != nil { return (false, 0) }
        close = (code, reason)
        return (true, clearInbox())
    }

    /// The socket is gone. - Returns: the session, which starts its grace period, and the
    /// memory delta (the dropped frames' bytes given back).
    mutating func closeSocket() -> (session: Session?, memoryDelta: Int) {
        socketClosed = true
        let delta = clearInbox()
        defer { session = nil }
        return (session, delta)
    }

    /// Drops the frames not processed. - Returns: the memory delta.
    private mutating func clearInbox() -> Int {
        inbox.removeAll()
        defer { inboxBytes = 0 }
        return -inboxBytes
    }
}

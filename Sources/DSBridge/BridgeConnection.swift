// SPDX-License-Identifier: MIT
import Dispatch
import DequeModule
import Synchronization

/// The transport's hook on one socket: `wake()` may be called from any thread to say the
/// connection has something to write, a close to perform or a read-pause change. The
/// transport then calls ``BridgeConnection/nextAction()`` on its own thread.
public protocol ConnectionWaker: Sendable {
    func wake()
}

/// What the transport should do next on a socket.
public enum ConnectionAction: Sendable, Equatable {
    /// Write this text frame.
    case write([UInt8])
    /// Close with this code and reason (after everything before it was written).
    case close(code: Int, reason: String)
}

/// One WebSocket as the bridge sees it: frames in, actions out. Frames are processed in
/// order, one at a time, off the transport's thread; the transport only moves bytes.
public final class BridgeConnection: Sendable {
    struct State: Sendable {
        var inbox = Deque<[UInt8]>()
        var inboxBytes = 0
        /// Bytes of a frame whose calls wait for the session's call rate.
        var rateWaitBytes = 0
        var processing = false
        var helloSeen = false
        var session: BridgeSession?
        /// Frames written before the session's messages (the `welcome`).
        var control = Deque<[UInt8]>()
        var close: (code: Int, reason: String)?
        var closeTaken = false
        /// The session has too many pending calls (`maxCallsPending`).
        var pausedForCalls = false
        /// Frames read but not yet processed exceed the inbox bound.
        var pausedForInbox = false
        /// The session's calls are waiting for its rate (`maxCallsPerSecond`).
        var pausedForRate = false
        var socketClosed = false
        var readsPaused: Bool { pausedForCalls || pausedForInbox || pausedForRate }
    }

    let bridge: Bridge
    let waker: any ConnectionWaker
    /// The TCP peer address (for per-address limits and logs).
    public let peerAddress: String
    /// The `Origin` header of the upgrade, if any.
    public let origin: String?
    private let state = Mutex(State())

    /// Headers of the upgrade request (lower-case names), for the authenticator.
    public let requestHeaders: [String: String]

    init(bridge: Bridge, peerAddress: String, origin: String?, headers: [String: String], waker: any ConnectionWaker) {
        self.bridge = bridge
        self.peerAddress = peerAddress
        self.origin = origin
        self.requestHeaders = headers
        self.waker = waker
    }

    // MARK: transport side (called on the transport's thread)

    /// Hands over one complete text message from the page. Returns at once, or after
    /// running the frame when ``InlineDispatchPolicy`` lets this thread run it; when frames
    /// pile up faster than they are processed, asks the transport to pause reading. The
    /// transport calls ``Bridge/runDeferredWork()`` after each pass of handing over frames.
    public func receive(_ frame: [UInt8]) {
        let limit = inboxLimit
        var inlineSession: BridgeSession?
        let (start, pause) = state.withLock { s -> (Bool, Bool) in
            if s.close != nil || s.socketClosed { return (false, false) }
            if !s.processing, s.inbox.isEmpty, !s.readsPaused, let session = s.session,
               frame.count <= InlineDispatchPolicy.maxFrameBytes {
                // Nothing ahead of this frame: this thread may decode it and decide.
                s.processing = true
                inlineSession = session
                return (false, false)
            }
            s.inbox.append(frame)
            s.inboxBytes += frame.count
            bridge.memory.add(frame.count)
            var pause = false
            if !s.pausedForInbox, s.inbox.count > limit.frames || s.inboxBytes > limit.bytes {
                s.pausedForInbox = true
                pause = true
            }
            if s.processing || s.pausedForCalls { return (false, pause) }
            s.processing = true
            return (true, pause)
        }
        if let inlineSession {
            receiveFirst(frame, session: inlineSession)
            return
        }
        if pause { waker.wake() }
        if start { DispatchQueue.global().async { self.processInbox() } }
    }

    /// Decodes a frame nothing waits ahead of (the connection is `processing`) and runs it
    /// here when ``InlineDispatchPolicy`` allows, else on a worker thread.
    private func receiveFirst(_ frame: [UInt8], session: BridgeSession) {
        guard let messages = decode(frame, helloSeen: true) else {
            resumeAfterProcessing()
            return
        }
        if let routes = InlineDispatchPolicy.routes(for: messages, session: session, registry: bridge.registry) {
            if let wait = dispatch(messages[...], session: session, checkRate: true, frameBytes: frame.count, inlineRoutes: routes) {
                waitForRate(wait)
            } else {
                resumeAfterProcessing()
            }
            return
        }
        DispatchQueue.global().async { [self] in
            if let wait = dispatch(messages[...], session: session, checkRate: true, frameBytes: frame.count) {
                waitForRate(wait)
            } else {
                processInbox()
            }
        }
    }

    /// Ends a stretch of processing; starts the inbox again if frames arrived meanwhile.
    private func resumeAfterProcessing() {
        state.withLock { $0.processing = false }
        resumeProcessing()
    }

    /// Frames and bytes read but not processed before reading pauses.
    private var inboxLimit: (frames: Int, bytes: Int) {
        (4_096, max(4 * bridge.configuration.maxMessageBytes, 1 << 20))
    }

    /// The next thing to do on the socket, or `nil` when there is nothing.
    public func nextAction() -> ConnectionAction? {
        let (control, session, close) = state.withLock { s -> ([UInt8]?, BridgeSession?, (Int, String)?) in
            if let c = s.control.popFirst() { return (c, nil, nil) }
            return (nil, s.session, s.close)
        }
        if let control { return .write(control) }
        if let session, let frame = session.takeFrame(for: self) { return .write(frame) }
        guard let close else { return nil }
        return state.withLock { s in
            if s.closeTaken { return nil }
            s.closeTaken = true
            return .close(code: close.0, reason: close.1)
        }
    }

    /// Whether ``nextAction()`` has something more to give right now (a control frame,
    /// session messages not yet written, or a close not yet taken). Messages queued later
    /// wake the transport through the waker, so after a write the transport asks for
    /// another WRITEABLE only when this is true.
    public var hasPendingOutput: Bool {
        let (pending, session) = state.withLock { s -> (Bool, BridgeSession?) in
            (!s.control.isEmpty || (s.close != nil && !s.closeTaken), s.session)
        }
        return pending || (session?.hasUnsentFrame(for: self) ?? false)
    }

    /// Bytes read from the socket whose calls have not started: frames waiting to be
    /// processed, and a frame waiting for the call rate (counted in ``Bridge/memory``).
    var unprocessedBytes: Int { state.withLock { $0.inboxBytes + $0.rateWaitBytes } }

    /// Drops the frames waiting to be processed (under the lock), giving their bytes back to
    /// the memory budget.
    private func clearInbox(_ s: inout State) {
        s.inbox.removeAll()
        bridge.memory.add(-s.inboxBytes)
        s.inboxBytes = 0
    }

    /// Whether the bridge wants the transport to stop reading this socket (backpressure).
    public var wantsReadsPaused: Bool { state.withLock { $0.readsPaused } }

    /// Whether nothing is in flight on this socket: no frame waiting to be processed, no
    /// sync call running, nothing left to write. A drain closes settled sockets first.
    public var isSettled: Bool {
        let (busy, session) = state.withLock { s in (s.processing || !s.inbox.isEmpty || !s.control.isEmpty, s.session) }
        if busy { return false }
        return session?.isSettled(for: self) ?? true
    }

    /// The session attached to this socket, if any.
    public var session: BridgeSession? { state.withLock { $0.session } }

    /// Whether this socket is still waiting for its `hello`.
    public var awaitsHello: Bool { state.withLock { !$0.helloSeen } }

    /// The socket is gone; its session (if any) starts its grace period.
    public func socketClosed() {
        let session = state.withLock { s -> BridgeSession? in
            s.socketClosed = true
            clearInbox(&s)
            let session = s.session
            s.session = nil
            return session
        }
        session?.detach(self)
    }

    // MARK: bridge side (any thread)

    /// Asks the transport to close the socket with `code` after what is queued.
    func requestClose(code: Int, reason: String) {
        let changed = state.withLock { s -> Bool in
            if s.close != nil { return false }
            s.close = (code, reason)
            clearInbox(&s)
            return true
        }
        if changed { waker.wake() }
    }

    /// Detaches the session without closing (the session ended or moved to another socket).
    func dropSession(_ session: BridgeSession) {
        state.withLock { s in
            if s.session === session { s.session = nil }
        }
    }

    func enqueueControl(_ frame: [UInt8]) {
        state.withLock { $0.control.append(frame) }
        waker.wake()
    }

    /// The session has `maxCallsPending` unanswered calls (true) or one fewer again (false):
    /// neither the socket nor the frames already read are taken until answers go out.
    func setReadsPaused(_ paused: Bool) {
        setPaused(\.pausedForCalls, paused)
        if !paused { resumeProcessing() }
    }

    /// Starts processing the inbox again if frames wait and nothing else holds them.
    private func resumeProcessing() {
        let start = state.withLock { s -> Bool in
            guard !s.processing, !s.pausedForCalls, !s.inbox.isEmpty, s.close == nil, !s.socketClosed else { return false }
            s.processing = true
            return true
        }
        if start { DispatchQueue.global().async { self.processInbox() } }
    }

    private func setPaused(_ reason: WritableKeyPath<State, Bool>, _ paused: Bool) {
        let changed = state.withLock { s -> Bool in
            if s[keyPath: reason] == paused { return false }
            let before = s.readsPaused
            s[keyPath: reason] = paused
            return before != s.readsPaused
        }
        if changed { waker.wake() }
    }

    /// Messages of a frame held back by the session's call rate, or (after 0 ms) handed from
    /// the network thread to a worker because the frame used up the inline budget.
    private struct RateWait {
        let milliseconds: Int
        let messages: ArraySlice<PageMessage>
        let session: BridgeSession
        /// Size of the frame they came in (counted against the memory budget meanwhile).
        let frameBytes: Int
    }

    private func processInbox() {
        while true {
            let next = state.withLock { s -> ([UInt8], Bool, BridgeSession?, Bool)? in
                // While the session has maxCallsPending unanswered calls, frames already
                // read wait too (setReadsPaused(false) resumes).
                guard s.close == nil, !s.socketClosed, !s.pausedForCalls, let frame = s.inbox.popFirst() else {
                    s.processing = false
                    return nil
                }
                s.inboxBytes -= frame.count
                bridge.memory.add(-frame.count)
                var resume = false
                if s.pausedForInbox, s.inbox.isEmpty {
                    s.pausedForInbox = false
                    resume = !s.readsPaused
                }
                return (frame, s.helloSeen, s.session, resume)
            }
            guard let (frame, helloSeen, session, resume) = next else { return }
            if resume { waker.wake() }
            guard let messages = decode(frame, helloSeen: helloSeen) else { continue }
            if let wait = dispatch(messages[...], session: session, checkRate: true, frameBytes: frame.count) {
                waitForRate(wait)
                return
            }
        }
    }

    /// Over the session's call rate: stops reading, runs the rest of the frame when the rate
    /// allows, then goes on with the inbox (the connection stays `processing` meanwhile).
    private func waitForRate(_ wait: RateWait) {
        setPaused(\.pausedForRate, true)
        state.withLock { $0.rateWaitBytes = wait.frameBytes }
        bridge.memory.add(wait.frameBytes)
        bridge.scheduler.schedule(afterMilliseconds: wait.milliseconds) { [self] in
            let open = state.withLock { s in
                s.rateWaitBytes = 0
                return s.close == nil && !s.socketClosed
            }
            bridge.memory.add(-wait.frameBytes)
            // A closed socket drops them unread: lastCall did not move, the page resends.
            if open { _ = dispatch(wait.messages, session: wait.session, checkRate: false) }
            setPaused(\.pausedForRate, false)
            processInbox()
        }
    }

    /// Decodes one frame; on a protocol error closes the socket (4000) and returns `nil`.
    private func decode(_ frame: [UInt8], helloSeen: Bool) -> [PageMessage]? {
        do {
            return try PageFrameDecoder(maxDepth: bridge.configuration.maxDepth).decode(frame, helloSeen: helloSeen)
        } catch {
            bridge.logger.debug("protocol error: \(error.reason)", metadata: ["bridge.peer": "\(peerAddress)"])
            requestClose(code: 4000, reason: error.reason)
            return nil
        }
    }

    /// Runs `messages` in order. With `checkRate`, the calls among them are counted against
    /// the session's rate first; when they must wait, they and what follows are returned.
    /// `inlineRoutes`: the transport's thread runs them, with their calls already resolved
    /// (``InlineDispatchPolicy``).
    private func dispatch(
        _ messages: ArraySlice<PageMessage>, session: BridgeSession?, checkRate: Bool, frameBytes: Int = 0,
        inlineRoutes: [Result<CallRoute, CallFailure>?]? = nil
    ) -> RateWait? {
        let inlineStarted = inlineRoutes == nil ? 0 : DispatchTime.now().uptimeNanoseconds
        var ranInline = false
        var current = session
        var checkRate = checkRate
        for index in messages.indices {
            switch messages[index] {
            case .hello(let hello):
                state.withLock { $0.helloSeen = true }
                switch bridge.attach(hello, connection: self) {
                case .success(let s):
                    current = s
                case .failure(let refusal):
                    requestClose(code: refusal.code, reason: refusal.reason)
                    return nil
                }
            case .call(let call):
                // A frame of many quick calls may still add up: past the budget, the rest
                // of it goes to a worker (its calls were already counted against the rate).
                if inlineRoutes != nil, ranInline, let s = current,
                   DispatchTime.now().uptimeNanoseconds - inlineStarted > UInt64(InlineDispatchPolicy.budgetNanoseconds) {
                    return RateWait(milliseconds: 0, messages: messages[index...], session: s, frameBytes: frameBytes)
                }
                if checkRate, let s = current {
                    checkRate = false
                    let calls = messages[index...].count { if case .call = $0 { true } else { false } }
                    let wait = s.takeCallTokens(calls)
                    if wait > 0 { return RateWait(milliseconds: wait, messages: messages[index...], session: s, frameBytes: frameBytes) }
                }
                current?.receiveCall(call, from: self, onNetworkThread: inlineRoutes != nil, route: inlineRoutes?[index] ?? nil)
                ranInline = inlineRoutes != nil
            case .cancel(let id):
                current?.cancel(callID: id)
            case .ack(let seq):
                current?.acknowledge(seq)
            }
        }
        return nil
    }

    /// Attaches `session` and queues `welcome` (called by the bridge during `hello`).
    func adopt(_ session: BridgeSession, welcome: [UInt8]) -> Bool {
        let adopted = state.withLock { s in
            if s.socketClosed { return false }
            s.session = session
            s.control.append(welcome)
            return true
        }
        if adopted { waker.wake() }
        return adopted
    }
}

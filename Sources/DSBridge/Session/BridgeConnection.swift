// SPDX-License-Identifier: MIT
import Dispatch
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
/// order, one at a time, off the transport's thread (or on it, when
/// ``InlineDispatchPolicy`` allows); the transport only moves bytes.
///
/// A shell over ``ConnectionState``: each method takes the lock, makes one transition,
/// lets go, then carries out what it returned (start a worker on the bridge's executor,
/// wake the transport, run a frame). Its lock comes after the session's (see
/// ``BridgeSession``).
public final class BridgeConnection: Sendable {
    let bridge: Bridge
    let waker: any ConnectionWaker
    /// The TCP peer address (for per-address limits and logs).
    public let peerAddress: String
    /// The `Origin` header of the upgrade, if any.
    public let origin: String?
    private let state: Mutex<ConnectionState<BridgeSession>>

    /// Headers of the upgrade request (lower-case names), for the authenticator.
    public let requestHeaders: [String: String]

    init(bridge: Bridge, peerAddress: String, origin: String?, headers: [String: String], waker: any ConnectionWaker) {
        self.bridge = bridge
        self.peerAddress = peerAddress
        self.origin = origin
        self.requestHeaders = headers
        self.waker = waker
        let limit = ConnectionState<BridgeSession>.InboxLimit(
            frames: 4_096, bytes: max(4 * bridge.configuration.maxMessageBytes, 1 << 20))
        state = Mutex(ConnectionState(inboxLimit: limit))
    }

    // MARK: transport side (called on the transport's thread)

    /// Runs `body`, which hands this connection the frames of one read (``receive(_:)``),
    /// with ``BridgeSession/current`` bound to its session once for all of them: the calls
    /// run here then find it bound, where binding it for each (outside a task, an allocation
    /// and a free) cost about 500 instructions a call.
    public func receivingFrames(_ body: () -> Void) {
        guard let session = state.withLock({ $0.session }) else { return body() }
        BridgeSession.$current.withValue(session, operation: body)
    }

    /// Hands over one complete text message from the page. Returns at once, or after
    /// running the frame when ``InlineDispatchPolicy`` lets this thread run it; when frames
    /// pile up faster than they are processed, asks the transport to pause reading. The
    /// transport calls ``Bridge/runDeferredWork()`` after each pass of handing over frames.
    public func receive(_ frame: [UInt8]) {
        switch state.withLock({ $0.receive(frame, mayRunFirst: frame.count <= InlineDispatchPolicy.maxFrameBytes) }) {
        case .dropped:
            return
        case .first(let session):
            receiveFirst(frame, session: session)
        case .queued(let startWorker, let pauseReads, let memoryDelta):
            bridge.memory.add(memoryDelta)
            if pauseReads { waker.wake() }
            if startWorker { bridge.executor.execute { self.processInbox() } }
        }
    }

    /// Decodes a frame nothing waits ahead of (the connection is `processing`) and runs it
    /// here when ``InlineDispatchPolicy`` allows, else on a worker.
    private func receiveFirst(_ frame: [UInt8], session: BridgeSession) {
        // Most frames are one call in dsbridge.js's layout (``CallFrameFastPath``).
        if let layout = CallFrameFastPath.layout(of: frame, maxDepth: bridge.configuration.maxDepth) {
            let call = CallFrameFastPath.call(in: frame, layout)
            if let route = InlineDispatchPolicy.route(of: call.method, session: session, registry: bridge.registry) {
                finishInline(dispatchLoneCall(call, route: route, session: session, frameBytes: frame.count))
            } else {
                dispatchOnWorker([.call(consume call)], session: session, frameBytes: frame.count)
            }
            return
        }
        guard let messages = decode(frame, helloSeen: true, fastPathTried: true) else {
            resumeAfterProcessing()
            return
        }
        if let routes = InlineDispatchPolicy.routes(for: messages, session: session, registry: bridge.registry) {
            finishInline(
                dispatch(messages[...], session: session, plan: plan(onNetworkThread: true), frameBytes: frame.count, inlineRoutes: routes))
            return
        }
        dispatchOnWorker(messages, session: session, frameBytes: frame.count)
    }

    /// Runs a frame's messages on a worker, then goes on with the inbox.
    private func dispatchOnWorker(_ messages: [PageMessage], session: BridgeSession, frameBytes: Int) {
        bridge.executor.execute { [self] in
            if proceed(dispatch(messages[...], session: session, plan: plan(), frameBytes: frameBytes)) { processInbox() }
        }
    }

    /// Carries out how a dispatch on the network thread stopped.
    private func finishInline(_ stop: DispatchStop) {
        switch stop {
        case .done: resumeAfterProcessing()
        case .rate(let wait): waitForRate(wait)
        case .waiting: break
        }
    }

    /// Carries out how a dispatch stopped. - Returns: whether the caller goes on with the
    /// inbox (the frame is done); otherwise something else continues processing later.
    private func proceed(_ stop: DispatchStop) -> Bool {
        switch stop {
        case .done: return true
        case .rate(let wait):
            waitForRate(wait)
            return false
        case .waiting: return false
        }
    }

    /// Ends a stretch of processing; starts the inbox again if frames arrived meanwhile.
    private func resumeAfterProcessing() {
        if state.withLock({ $0.finishProcessing() }) { bridge.executor.execute { self.processInbox() } }
    }

    /// The next thing to do on the socket, or `nil` when there is nothing.
    public func nextAction() -> ConnectionAction? {
        let (control, session) = state.withLock { $0.takeControl() }
        if let control { return .write(control) }
        if let session, let frame = session.takeFrame(for: self) { return .write(frame) }
        guard let close = state.withLock({ $0.takeClose() }) else { return nil }
        return .close(code: close.code, reason: close.reason)
    }

    /// Whether ``nextAction()`` has something more to give right now (a control frame,
    /// session messages not yet written, or a close not yet taken). Messages queued later
    /// wake the transport through the waker, so after a write the transport asks for
    /// another WRITEABLE only when this is true.
    public var hasPendingOutput: Bool {
        let (pending, session) = state.withLock { ($0.hasOwnOutput, $0.session) }
        return pending || (session?.hasUnsentFrame(for: self) ?? false)
    }

    /// Bytes read from the socket whose calls have not started: frames waiting to be
    /// processed, and a frame waiting for the call rate (counted in ``Bridge/memory``).
    var unprocessedBytes: Int { state.withLock { $0.unprocessedBytes } }

    /// Whether the bridge asked for this socket to be closed (taken or not yet).
    public var closeRequested: Bool { state.withLock { $0.closeRequested } }

    /// Whether the bridge wants the transport to stop reading this socket (backpressure).
    public var wantsReadsPaused: Bool { state.withLock { $0.readsPaused } }

    /// Whether nothing is in flight on this socket: no frame waiting to be processed, no
    /// sync call running, nothing left to write. A drain closes settled sockets first.
    public var isSettled: Bool {
        let (busy, session) = state.withLock { ($0.isBusy, $0.session) }
        if busy { return false }
        return session?.isSettled(for: self) ?? true
    }

    /// The session attached to this socket, if any.
    public var session: BridgeSession? { state.withLock { $0.session } }

    /// Whether this socket is still waiting for its `hello`.
    public var awaitsHello: Bool { state.withLock { !$0.helloSeen } }

    /// The socket is gone; its session (if any) starts its grace period.
    public func socketClosed() {
        let (session, memoryDelta) = state.withLock { $0.closeSocket() }
        bridge.memory.add(memoryDelta)
        if let session { SessionReconnect(bridge: bridge).socketClosed(self, of: session) }
    }

    // MARK: bridge side (any thread)

    /// Asks the transport to close the socket with `code` after what is queued.
    func requestClose(code: Int, reason: String) {
        let (first, memoryDelta) = state.withLock { $0.requestClose(code: code, reason: reason) }
        bridge.memory.add(memoryDelta)
        if first { waker.wake() }
    }

    /// Detaches the session without closing (the session ended or moved to another socket).
    func dropSession(_ session: BridgeSession) {
        state.withLock { $0.dropSession(session) }
    }

    func enqueueControl(_ frame: [UInt8]) {
        state.withLock { $0.enqueueControl(frame) }
        waker.wake()
    }

    /// The session has `maxCallsPending` unanswered calls (true) or one fewer again (false):
    /// neither the socket nor the frames already read are taken until answers go out.
    func setReadsPaused(_ paused: Bool) {
        setPaused(.calls, paused)
        if !paused { resumeProcessing() }
    }

    /// Starts processing the inbox again if frames wait and nothing else holds them.
    private func resumeProcessing() {
        if state.withLock({ $0.resumeProcessing() }) { bridge.executor.execute { self.processInbox() } }
    }

    private func setPaused(_ reason: ConnectionState<BridgeSession>.PauseReason, _ paused: Bool) {
        if state.withLock({ $0.setPaused(reason, paused) }) { waker.wake() }
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
        while let next = state.withLock({ $0.takeFrame() }) {
            bridge.memory.add(next.memoryDelta)
            if next.resumeReads { waker.wake() }
            guard let messages = decode(next.frame, helloSeen: next.helloSeen) else { continue }
            if !proceed(dispatch(messages[...], session: next.session, plan: plan(), frameBytes: next.frame.count)) { return }
        }
    }

    /// Over the session's call rate: stops reading, runs the rest of the frame when the rate
    /// allows, then goes on with the inbox (the connection stays `processing` meanwhile).
    private func waitForRate(_ wait: RateWait) {
        setPaused(.rate, true)
        bridge.memory.add(state.withLock { $0.startRateWait(bytes: wait.frameBytes) })
        bridge.executor.schedule(afterMilliseconds: wait.milliseconds) { [self] in
            // A closed socket drops them unread: lastCall did not move, the page resends.
            let (isOpen, memoryDelta) = state.withLock { $0.finishRateWait() }
            bridge.memory.add(memoryDelta)
            let stop = isOpen ? dispatch(wait.messages, session: wait.session, plan: plan(checksRate: false)) : .done
            setPaused(.rate, false)
            if proceed(stop) { processInbox() }
        }
    }

    /// Decodes one frame; on a protocol error closes the socket (4000) and returns `nil`.
    /// `fastPathTried`: ``CallFrameFastPath`` did not read it (the frame is read in any layout).
    private func decode(_ frame: [UInt8], helloSeen: Bool, fastPathTried: Bool = false) -> [PageMessage]? {
        do {
            let decoder = PageFrameDecoder(maxDepth: bridge.configuration.maxDepth)
            if fastPathTried { return try decoder.decodeAnyLayout(frame: frame, helloSeen: helloSeen) }
            return try decoder.decode(frame: frame, helloSeen: helloSeen)
        } catch {
            bridge.logger.debug("protocol error: \(error.reason)", metadata: ["bridge.peer": "\(peerAddress)"])
            requestClose(code: 4000, reason: error.reason)
            return nil
        }
    }

    /// How a dispatch of a frame's messages stopped.
    private enum DispatchStop {
        /// Every message ran (or was dropped): go on with the next frame.
        case done
        /// The rest waits for the session's call rate.
        case rate(RateWait)
        /// The rest waits for the journal (a takeover, its calls' acceptance), which goes on with it.
        case waiting
    }

    /// How a frame (or what is left of one) is dispatched: on which thread, and what was already
    /// checked. `checksRate`: its calls are counted against the session's rate first (when they
    /// must wait, they and what follows are returned). `journalChecked`: their acceptance is
    /// durable. `authorized`: the hello passed the authenticator before a takeover.
    private func plan(
        onNetworkThread: Bool = false, checksRate: Bool = true, journalChecked: Bool = false, authorized: Bool = false
    ) -> FrameDispatch {
        FrameDispatch(
            onNetworkThread: onNetworkThread, clustered: bridge.journals, checksRate: checksRate, journalChecked: journalChecked,
            authorized: authorized)
    }

    /// Runs `messages` in order, as `plan` (a ``FrameDispatch``) decides for each. `inlineRoutes`:
    /// the transport's thread runs them, their calls resolved already (``InlineDispatchPolicy``).
    private func dispatch(
        _ messages: ArraySlice<PageMessage>, session: BridgeSession?, plan: FrameDispatch, frameBytes: Int = 0,
        inlineRoutes: borrowing InlineRoutes = InlineRoutes()
    ) -> DispatchStop {
        let site: CallSite = plan.onNetworkThread ? .networkThread(bridge.networkThreadGuard) : .worker
        var plan = plan
        var current = session
        for index in messages.indices {
            // A call is read through accessors: a `switch` over the message copies all of it.
            if messages[index].isCall {
                var clock: UInt64?
                let decision = decide(&plan, session: current, clock: &clock) { messages[index...].count(where: \.isCall) }
                if decision != .inline, let stop = stop(decision, rest: messages[index...], session: current, frameBytes: frameBytes) {
                    return stop
                }
                current?.receiveCall(in: messages, at: index, from: self, site: site, route: inlineRoutes.route(at: index), startedNanoseconds: clock)
                continue
            }
            switch messages[index] {
            case .hello(let hello):
                state.withLock { $0.markHelloSeen() }
                if let token = hello.token, plan.hello(resuming: token, isHeldHere: { bridge.session(token: $0) != nil }) == .takeOver {
                    return takeOver(hello, token: token, then: messages[index...], frameBytes: frameBytes)
                }
                switch SessionReconnect(bridge: bridge).hello(hello, on: self, authorized: plan.authorized) {
                case .success(let s):
                    current = s
                case .failure(let refusal):
                    requestClose(code: refusal.code, reason: refusal.reason)
                    return .done
                }
            case .call: break  // (above)
            case .cancel(let id):
                current?.cancel(callID: id, site: site)
            case .ack(let seq):
                current?.acknowledge(seq)
            }
        }
        return .done
    }

    /// How `plan` decides a call: reads the clock (`clock`: the call's start, and the rate's
    /// time) and takes the rate's tokens for the `calls` among it and the messages after it.
    private func decide(
        _ plan: inout FrameDispatch, session: BridgeSession?, clock: inout UInt64?, calls: () -> Int
    ) -> FrameDispatch.CallDecision {
        plan.call(
            hasSession: session != nil,
            now: {
                let now = DispatchTime.now().uptimeNanoseconds
                clock = now
                return now
            },
            rateWait: { session?.takeCallTokens(calls(), dispatchUptime: clock) ?? 0 })
    }

    /// How a dispatch stops at a call that may not run in line (`decision`), `rest` being
    /// the call and the messages after it; `nil` when it runs here after all.
    private func stop(
        _ decision: FrameDispatch.CallDecision, rest: ArraySlice<PageMessage>, session: BridgeSession?, frameBytes: Int
    ) -> DispatchStop? {
        guard let session else { return nil }
        switch decision {
        case .inline:
            return nil
        case .handOff, .waitRate:
            let wait = if case .waitRate(let ms) = decision { ms } else { 0 }
            return .rate(RateWait(milliseconds: wait, messages: rest, session: session, frameBytes: frameBytes))
        case .waitJournal:
            if case .stop(let stop) = gate(rest, session: session) { return stop }
            return nil
        }
    }

    /// Runs a call that came alone in its frame on the network thread, as ``dispatch(_:session:plan:frameBytes:inlineRoutes:)``
    /// runs a frame of one call, without the list of messages (an allocation per frame).
    private func dispatchLoneCall(
        _ call: borrowing PageMessage.Call, route: consuming Result<CallRoute, CallFailure>, session: BridgeSession, frameBytes: Int
    ) -> DispatchStop {
        var plan = plan(onNetworkThread: true)
        var clock: UInt64?
        let decision = decide(&plan, session: session, clock: &clock) { 1 }
        if decision != .inline, let stop = stop(decision, rest: [.call(copy call)][...], session: session, frameBytes: frameBytes) {
            return stop
        }
        session.receiveCall(call, from: self, site: .networkThread(bridge.networkThreadGuard), route: route, startedNanoseconds: clock)
        return .done
    }

    // MARK: cluster mode (docs/CLUSTER.md)

    /// Journaled sessions: the calls of `rest` run once their acceptance is durable. When
    /// they must wait, the dispatch of `rest` continues on a worker when the journal
    /// answers (or `rest` is dropped, when the session moved: the page resends its calls to
    /// the new owner); the socket stays `processing` meanwhile, so frames keep their order.
    /// When they must wait, the frames queued behind are taken too and their calls accepted
    /// in the same journal write: a page with many calls in flight waits one round trip for
    /// all of them, not one per frame. Calls that may run ahead (``RunAheadCalls``) do not
    /// wait unless an earlier call of the session does.
    private func gate(_ rest: ArraySlice<PageMessage>, session: BridgeSession) -> GateResult {
        let ids = Self.callIDs(rest)
        if session.isAcceptanceDurable(ids) { return .proceed }
        // Answers to native calls (and calls that change nothing) need not wait a round:
        // their acceptance goes into the next write all the same (``RunAheadCalls``).
        let runAhead = RunAheadCalls.allowed(rest, in: bridge.registry)
        let more = runAhead ? [] : takeQueuedMessages()
        let all = more.isEmpty ? ids : ids + Self.callIDs(more[...])
        // A `_dsb.dsinit` among them: the page's readiness is written with their acceptance,
        // so a node lost before dsinit ran here leaves the session ready in the journal (the
        // page does not send dsinit twice, and the new owner fails this one as lost).
        let marksReady = hasReadyCall(rest) || hasReadyCall(more[...])
        // Answers to native calls run ahead: those for other nodes go out with the write of
        // their acceptance (docs/CLUSTER.md, rule 1's exception), read here from the frame.
        // (Parsed only when a call of another node waits: answers to this node's own calls
        // are delivered by their run.)
        let answers = runAhead && session.waitsForCallsOfOtherNodes ? returnValueAnswers(rest) : [:]
        let gate = session.gateCalls(all, runAhead: runAhead, marksReady: marksReady, answers: answers) { [self] gate in
            bridge.executor.execute { [self] in continueAfterGate(gate, rest, more, session: session) }
        }
        switch gate {
        case .moved: return .stop(.done)
        case .wait: return .stop(.waiting)
        case .open:
            if more.isEmpty { return .proceed }
            bridge.executor.execute { [self] in continueAfterGate(.open, rest, more, session: session) }
            return .stop(.waiting)
        }
    }

    /// How the journal gate left a dispatch.
    private enum GateResult {
        /// Go on with the messages here.
        case proceed
        /// Stop here: the gate carries on (or dropped them).
        case stop(DispatchStop)
    }

    /// The page's answers to native calls (`_dsb.returnValue`) among `messages`, by call id.
    private func returnValueAnswers(_ messages: ArraySlice<PageMessage>) -> [Int64: ReturnValueAnswer] {
        var answers: [Int64: ReturnValueAnswer] = [:]
        for message in messages {
            guard case .call(let c) = message, bridge.registry.internalMethod(named: c.method) == .returnValue,
                let answer = ReturnValueAnswer(rawArgument: c.rawArg)
            else { continue }
            answers[c.id] = answer
        }
        return answers
    }

    private func hasReadyCall(_ messages: ArraySlice<PageMessage>) -> Bool {
        messages.contains { if case .call(let c) = $0 { bridge.registry.internalMethod(named: c.method) == .dsinit } else { false } }
    }

    private static func callIDs(_ messages: ArraySlice<PageMessage>) -> [Int64] {
        messages.compactMap { message -> Int64? in if case .call(let c) = message { c.id } else { nil } }
    }

    /// Runs what waited at the gate, in order (or drops it when the session moved: the page
    /// resends its calls to the new owner), then goes on with the inbox.
    private func continueAfterGate(
        _ gate: SessionJournalState.CallGate, _ rest: ArraySlice<PageMessage>, _ more: [PageMessage], session: BridgeSession
    ) {
        if gate == .open {
            guard proceed(dispatch(rest, session: session, plan: plan(checksRate: false, journalChecked: true))) else { return }
            if !more.isEmpty {
                guard proceed(dispatch(more[...], session: session, plan: plan(journalChecked: true))) else { return }
            }
        }
        processInbox()
    }

    /// The frames queued behind the one being processed, decoded (at most 64 frames or
    /// 256 KiB); a frame that is not valid closes the socket and ends the taking.
    private func takeQueuedMessages() -> [PageMessage] {
        var messages: [PageMessage] = []
        var bytes = 0
        for _ in 0..<64 {
            guard bytes < 256 << 10, let next = state.withLock({ $0.takeQueuedFrame() }) else { break }
            bridge.memory.add(next.memoryDelta)
            if next.resumeReads { waker.wake() }
            bytes += next.frame.count
            guard let decoded = decode(next.frame, helloSeen: next.helloSeen) else { break }
            messages += decoded
        }
        return messages
    }

    /// A `hello` names a token this node does not hold: the journal takes the session over
    /// (``SessionReconnect/takeOver(_:token:on:then:)``), then the frame is dispatched
    /// again from its hello.
    private func takeOver(
        _ hello: PageMessage.Hello, token: String, then rest: ArraySlice<PageMessage>, frameBytes: Int
    ) -> DispatchStop {
        let start = SessionReconnect(bridge: bridge).takeOver(hello, token: token, on: self) { [self] outcome in
            switch outcome {
            case .success:
                if proceed(dispatch(rest, session: nil, plan: plan(authorized: true), frameBytes: frameBytes)) { processInbox() }
            case .failure(let refusal):
                requestClose(code: refusal.code, reason: refusal.reason)
                processInbox()
            }
        }
        switch start {
        case .underway: return .waiting
        case .noJournal: return .done
        case .refused(let refusal):
            requestClose(code: refusal.code, reason: refusal.reason)
            return .done
        }
    }

    /// Attaches `session` and queues `welcome` (called by the bridge during `hello`).
    func adopt(_ session: BridgeSession, welcome: [UInt8], hold: Bool = false) -> Bool {
        let adopted = state.withLock { $0.adopt(session, welcome: welcome, hold: hold) }
        if adopted, !hold { waker.wake() }
        return adopted
    }

    /// Lets the welcome held by ``adopt(_:welcome:hold:)`` go out.
    func releaseWelcome() {
        if state.withLock({ $0.releaseWelcome() }) { waker.wake() }
    }
}

// SPDX-License-Identifier: MIT
import DequeModule
import Dispatch
import Foundation
import Logging
import Synchronization

/// One page session: its calls, its ordered outbound messages (with replay), its
/// native-initiated calls. It outlives its socket for the grace period. Every method is
/// safe from any thread; interface methods never run under its lock.
///
/// Lock order (the one place it is written down): a session's `state` lock comes first.
/// Under it an ``AsyncCall``'s lock or a ``BridgeConnection``'s lock (pausing reads) may
/// be taken, never the reverse, and never the bridge's session store. No user code runs
/// under it:
/// interface methods, their cancellation handlers (``end(reason:closeCode:)`` cancels
/// tasks after unlocking), interface deinits (instances are released after unlocking),
/// native-call handlers, lifecycle hooks and ``whenReady(_:)`` bodies.
public final class BridgeSession: Sendable {
    /// Public id, for logs and the admin API.
    public let id: String
    /// The secret that attaches a socket or a sync call to this session. Never logged.
    public let token: String
    /// The TCP peer address of the request that created the session.
    public let peerAddress: String
    /// The `Origin` of the request that created the session.
    public let origin: String?
    /// When the session was created.
    public let createdAt: Date

    /// The session whose call is running: set while an interface method runs (and in the
    /// tasks it starts that inherit task-locals). Keep it to call the page later.
    @TaskLocal public static var current: BridgeSession?

    /// The bridge this session belongs to.
    public let bridge: Bridge
    private let state: Mutex<State>
    private var logger: Logger { bridge.logger }

    struct State: Sendable {
        var log: OutboundLog
        var connection: BridgeConnection?
        var ended = false
        var ready = false
        var lastCall: Int64 = 0
        var pendingCalls = 0
        var runningAsync = 0
        var held: [(callbackId: Int64, invoke: EncodedInvoke, bytes: Int)] = []
        /// Bytes of the held invokes (as measured when they were made).
        var heldBytes = 0
        var nextCallbackId: Int64 = 1
        var nativeCalls: [Int64: NativeCallHandler] = [:]
        /// Page answers whose handlers wait to run off the network thread, in order.
        var answersToDeliver = Deque<(handler: NativeCallHandler, event: NativeCallEvent)>()
        /// A worker is running `answersToDeliver`.
        var deliveringAnswers = false
        /// Sync HTTP calls waiting for socket calls (`X-DSBridge-After`), at most
        /// ``BridgeSession/maxAfterWaiters``; each leaves at its start or its timeout.
        var afterWaiters: [(key: Int, after: Int64, resume: @Sendable (Bool) -> Void)] = []
        var nextAfterWaiterKey = 0
        /// Work waiting for `_dsb.dsinit` (``whenReady(_:)``); dropped when the session ends.
        var readyWaiters: [@Sendable (BridgeSession) -> Void] = []
        var detachGeneration = 0
        /// Per-session interface instances, by factory id.
        var instances: [Int: any ExposedInterface] = [:]
        /// Running async socket calls with a stub, by call id (for `cancel`).
        /// (`task` is nil for a method that started without suspending: nothing to cancel.)
        var cancellable: [Int64: (call: AsyncCall, task: Task<Void, Never>?)] = [:]
        /// The session's call rate (`maxCallsPerSecond`), made at its first call.
        var rate: CallRateLimiter?
        /// Bytes of sync-call requests (`POST /dsbridge/call` bodies) held while their call
        /// waits or runs.
        var syncBodyBytes = 0
        /// What this session has counted in the daemon-wide ``MemoryBudget`` (``settle()``).
        var counted = 0
        let memory: MemoryBudget

        /// The bytes this session holds for the memory budget: its replay and queued
        /// messages, held invokes and sync-call bodies (0 once ended).
        var holding: Int { ended ? 0 : log.keptBytes + heldBytes + syncBodyBytes }

        /// Brings the daemon-wide count up to date with ``holding`` (O(1); call after every
        /// change of what it sums). Once the session has ended it has given everything back
        /// and counts nothing more.
        mutating func settle() {
            let now = holding
            guard now != counted else { return }
            memory.add(now - counted)
            counted = now
        }
    }

    init(bridge: Bridge, id: String, token: String, peerAddress: String, origin: String?) {
        self.bridge = bridge
        self.id = id
        self.token = token
        self.peerAddress = peerAddress
        self.origin = origin
        self.createdAt = Date()
        let c = bridge.configuration
        state = Mutex(State(log: OutboundLog(maxMessages: c.replayMaxMessages, maxBytes: c.replayMaxBytes), memory: bridge.memory))
    }

    // MARK: status

    /// Whether a socket is attached.
    public var isConnected: Bool { state.withLock { $0.connection != nil } }
    /// Whether the page signalled `_dsb.dsinit`.
    public var isReady: Bool { state.withLock { $0.ready } }
    /// Whether the session is over.
    public var isEnded: Bool { state.withLock { $0.ended } }
    /// Bytes of unacknowledged messages kept for replay.
    public var replayBytes: Int { state.withLock { $0.log.keptBytes } }
    /// Bytes this session holds for the memory budget (PROTOCOL.md 2.6): unacknowledged
    /// and queued messages, held invokes, sync-call bodies, and frames its socket read but
    /// did not process yet. 0 once the session has ended.
    public var memoryHeld: Int {
        let (own, connection) = state.withLock { ($0.counted, $0.ended ? nil : $0.connection) }
        return own + (connection?.unprocessedBytes ?? 0)
    }
    /// Messages held (before `dsinit`) or not yet acknowledged.
    public var queuedCount: Int { state.withLock { $0.held.count + $0.log.keptCount } }
    /// No sync call of the socket is running and everything queued went to `connection`
    /// (what a drain waits for before closing the socket).
    func isSettled(for connection: BridgeConnection) -> Bool {
        state.withLock { s in
            s.pendingCalls == 0 && (s.connection !== connection || !s.log.hasUnsent)
        }
    }

    /// The highest call id received.
    public var lastCallID: Int64 { state.withLock { $0.lastCall } }

    // MARK: sockets

    /// Attaches `connection`, replacing (4009) any other; queues `welcome` and everything
    /// after `ack` for it. Fails when the session has ended.
    func attach(_ connection: BridgeConnection, ack: Int64, resumed: Bool) -> Bool {
        // When the socket closed before its welcome and no other socket is attached, the
        // session needs a grace period again (the attempt moved `detachGeneration`, so an
        // expiry already scheduled no longer applies): every session ends or expires.
        var expiryGeneration: Int?
        let attached = state.withLock { s in
            if s.ended { return false }
            let old = s.connection
            s.connection = connection
            s.detachGeneration += 1
            s.log.rewind(toAck: ack)
            s.settle()
            let welcome = ServerMessage.welcome(
                session: id, token: token, lastCall: s.lastCall, resumed: resumed,
                heartbeatMs: bridge.configuration.heartbeatMs
            ).encoded(seq: 0)
            guard connection.adopt(self, welcome: welcome) else {
                s.connection = old
                if old == nil { expiryGeneration = s.detachGeneration }
                return false
            }
            if let old, old !== connection {
                old.dropSession(self)
                old.requestClose(code: 4009, reason: "replaced by a newer socket")
            }
            if s.pendingCalls >= bridge.configuration.maxCallsPending { connection.setReadsPaused(true) }
            return true
        }
        if let expiryGeneration { scheduleExpiry(generation: expiryGeneration) }
        return attached
    }

    /// The socket closed; the session waits `graceMs` for another one.
    func detach(_ connection: BridgeConnection) {
        let generation = state.withLock { s -> Int? in
            guard s.connection === connection else { return nil }
            s.connection = nil
            s.detachGeneration += 1
            return s.detachGeneration
        }
        guard let generation else { return }
        scheduleExpiry(generation: generation)
    }

    /// Starts the grace period of a session no socket is attached to.
    func scheduleExpiry(generation: Int) {
        let grace = bridge.configuration.graceMs
        bridge.scheduler.schedule(afterMilliseconds: grace) { [self] in
            let expired = state.withLock { s in
                !s.ended && s.connection == nil && s.detachGeneration == generation
            }
            if expired { end(reason: "expired after \(grace) ms without a socket", closeCode: nil) }
        }
    }

    /// The next frame for `connection`, if it is the attached one.
    func takeFrame(for connection: BridgeConnection) -> [UInt8]? {
        state.withLock { s in
            guard s.connection === connection else { return nil }
            return s.log.takeFrame()
        }
    }

    /// Whether messages wait to be written to `connection` (the attached one).
    func hasUnsentFrame(for connection: BridgeConnection) -> Bool {
        state.withLock { s in s.connection === connection && s.log.hasUnsent }
    }

    /// The page processed every message up to `seq`.
    func acknowledge(_ seq: Int64) {
        state.withLock { s in
            s.log.acknowledge(seq)
            s.settle()
        }
    }

    // MARK: ending

    /// Ends the session: native calls fail, the socket closes with `closeCode` (if any).
    public func end(reason: String, closeCode: Int? = 1000) {
        finish(reason: reason, closeCode: closeCode, dropQueued: false)
    }

    /// Ends the session for the memory budget (PROTOCOL.md 2.6): an attached socket is
    /// closed 4008 `memory budget` at once (messages not yet written are dropped, not
    /// written first), a session in its grace period ends silently.
    /// - Returns: whether this call ended it (`false`: it had ended already).
    func endForMemoryBudget() -> Bool {
        finish(reason: "memory budget", closeCode: 4008, dropQueued: true)
    }

    /// Ends the session; `dropQueued`: frees its queued and replay messages now instead of
    /// writing what is unsent before the close.
    @discardableResult
    private func finish(reason: String, closeCode: Int?, dropQueued: Bool) -> Bool {
        typealias Ending = (
            connection: BridgeConnection?, handlers: [NativeCallHandler], waiters: [@Sendable (Bool) -> Void],
            tasks: [Task<Void, Never>], instances: [any ExposedInterface]
        )
        let ending = state.withLock { s -> Ending? in
            if s.ended { return nil }
            s.ended = true
            s.settle()  // every byte it counted goes back to the budget
            if dropQueued { s.log = OutboundLog(maxMessages: s.log.maxMessages, maxBytes: s.log.maxBytes) }
            let handlers = Array(s.nativeCalls.values)
            s.nativeCalls.removeAll()
            s.held.removeAll()
            s.heldBytes = 0
            s.readyWaiters.removeAll()
            let waiters = s.afterWaiters.map(\.resume)
            s.afterWaiters.removeAll()
            let tasks = s.cancellable.values.compactMap(\.task)
            s.cancellable.removeAll()
            let instances = Array(s.instances.values)
            s.instances.removeAll()
            return (s.connection, handlers, waiters, tasks, instances)
        }
        guard let ending else { return false }
        let (connection, handlers, waiters) = (ending.connection, ending.handlers, ending.waiters)
        // Outside the lock (see the lock order on `BridgeSession`): a cancellation handler
        // may complete its call, and an interface's deinit may call back into the session.
        // (`ending.instances` are released when this function returns, also unlocked.)
        for task in ending.tasks { task.cancel() }
        bridge.forget(self)
        bridge.metrics.sessionClosed(closeCode: connection == nil ? nil : closeCode)
        logger.info("session ended: \(reason)", metadata: ["bridge.session": "\(id)"])
        bridge.lifecycle.closed?(self, reason)
        if let connection, let closeCode { connection.requestClose(code: closeCode, reason: CloseReason.clipped(reason)) }
        for h in handlers { h(.failed(.sessionEnded)) }
        for w in waiters { w(false) }
        return true
    }

    // MARK: outbound

    /// Queues a sequenced message. A message too large for the replay bound is replaced
    /// by an error (`ret`/`cb`); overflowing the bound ends the session with 4008.
    @discardableResult
    func send(_ message: ServerMessage) -> OutboundLog.AppendError? {
        let (connection, error) = state.withLock { s in Self.append(message, to: &s) }
        finishSend(connection: connection, error: error)
        return error
    }

    /// Appends under the lock; returns whom to wake and what went wrong.
    private static func append(_ message: ServerMessage, to s: inout State) -> (BridgeConnection?, OutboundLog.AppendError?) {
        defer { s.settle() }
        if s.ended { return (nil, nil) }
        do throws(OutboundLog.AppendError) {
            _ = try s.log.append(message)
            return (s.connection, nil)
        } catch .messageTooLarge(let bytes) {
            let tooLarge = CallFailure(.failed, "result too large (\(bytes) bytes)")
            let replacement: ServerMessage?
            switch message {
            case .ret(let id, _): replacement = .ret(id: id, result: .failure(tooLarge))
            case .cb(let stub, _): replacement = .cb(stub: stub, payload: .failure(tooLarge))
            default: replacement = nil
            }
            if let replacement { _ = try? s.log.append(replacement) }
            return (s.connection, .messageTooLarge(bytes: bytes))
        } catch {
            return (nil, error)
        }
    }

    /// Appends an invoke encoded off the lock, under it.
    private static func append(_ invoke: EncodedInvoke, callbackId: Int64, to s: inout State) -> (BridgeConnection?, OutboundLog.AppendError?) {
        defer { s.settle() }
        if s.ended { return (nil, nil) }
        do throws(OutboundLog.AppendError) {
            _ = try s.log.append { invoke.bytes(seq: $0, callbackId: callbackId) }
            return (s.connection, nil)
        } catch .messageTooLarge(let bytes) {
            return (s.connection, .messageTooLarge(bytes: bytes))
        } catch {
            return (nil, error)
        }
    }

    private func finishSend(connection: BridgeConnection?, error: OutboundLog.AppendError?) {
        if case .boundExceeded(let bound)? = error {
            bridge.metrics.overflow(bound: bound.contains("replayMaxMessages") ? "replayMaxMessages" : "replayMaxBytes")
            logger.warning("closing session 4008: \(bound)", metadata: ["bridge.session": "\(id)"])
            end(reason: bound, closeCode: 4008)
        }
        connection?.waker.wake()
    }

    // MARK: calls from the page

    /// Runs a socket call (in arrival order; called from the connection's processing).
    /// `onNetworkThread`: the transport's thread runs it (``InlineDispatchPolicy``), which
    /// may have resolved its `route` already.
    func receiveCall(
        _ call: PageMessage.Call, from connection: BridgeConnection, onNetworkThread: Bool = false,
        route: Result<CallRoute, CallFailure>? = nil
    ) {
        let fresh = state.withLock { s -> Bool in
            if s.ended || call.id <= s.lastCall { return false }
            s.lastCall = call.id
            return true
        }
        guard fresh else { return }
        let id = call.id
        run(method: call.method, arg: call.arg, reply: .socket(id), onNetworkThread: onNetworkThread, resolved: route)
        markStarted(through: id)
    }

    /// Counts `count` calls against the session's rate (`maxCallsPerSecond`).
    /// - Returns: milliseconds the calls must wait before they run; 0 means at once.
    func takeCallTokens(_ count: Int) -> Int {
        let perSecond = bridge.configuration.maxCallsPerSecond
        guard perSecond > 0, count > 0 else { return 0 }
        let now = bridge.scheduler.uptimeMilliseconds
        let wait = state.withLock { s -> Int in
            var rate = s.rate ?? CallRateLimiter(perSecond: perSecond, now: now)
            let wait = rate.take(count, now: now)
            s.rate = rate
            return wait
        }
        if wait > 0 {
            bridge.metrics.throttled()
            logger.debug("calls over \(perSecond)/s wait \(wait) ms", metadata: ["bridge.session": "\(id)"])
        }
        return wait
    }

    /// Runs a sync HTTP call after the socket calls up to `request.after` started.
    /// - Parameter tokenWait: milliseconds still owed to the call rate, when the caller
    ///   already counted the call (``syncCallOnNetworkThread(_:)``).
    /// - Returns: the call's result for the `{"code","data"}` answer.
    func syncCall(_ request: SyncCallRequest, tokenWait: Int? = nil) async -> Result<JSONValue, CallFailure> {
        holdSyncBody(request.bodyBytes)
        defer { holdSyncBody(-request.bodyBytes) }
        if tokenWait == nil { bridge.metrics.httpSyncCall() }
        let wait = tokenWait ?? takeCallTokens(1)
        if wait > 0 { await bridge.scheduler.sleep(milliseconds: wait) }
        switch await waitForStarted(through: request.after) {
        case .started:
            break
        case .timedOut:
            return .failure(CallFailure(.timeout, "socket calls up to id \(request.after) did not arrive within \(bridge.configuration.afterTimeoutMs) ms"))
        case .full:
            return .failure(CallFailure(.overloaded, "more than \(Self.maxAfterWaiters) sync calls of this session wait for socket calls"))
        }
        return await withCheckedContinuation { continuation in
            let once = OnceFlag()
            run(method: request.method, arg: request.arg, reply: .http({ result in
                if once.claim() { continuation.resume(returning: result) }
            }))
        }
    }

    /// What the network thread made of a sync HTTP call (``syncCallOnNetworkThread(_:)``).
    enum NetworkThreadSyncCall: Sendable {
        /// Answered: the result for the `{"code","data"}` answer.
        case answered(Result<JSONValue, CallFailure>)
        /// Started, answered later (the method suspended after all).
        case later(SyncCallAnswer)
        /// Needs a worker: pass `tokenWait` on to ``syncCall(_:tokenWait:)``.
        case needsWorker(tokenWait: Int?)
    }

    /// Runs a sync HTTP call on the network thread when it can: ``InlineDispatchPolicy``
    /// allows its method, the socket calls it must follow started, and the call rate has
    /// room. A method that suspends after all answers later (`.later`).
    func syncCallOnNetworkThread(_ request: SyncCallRequest) -> NetworkThreadSyncCall {
        guard let resolved = InlineDispatchPolicy.route(of: request.method, session: self, registry: bridge.registry) else {
            return .needsWorker(tokenWait: nil)
        }
        if request.after > 0, lastCallID < request.after { return .needsWorker(tokenWait: nil) }
        bridge.metrics.httpSyncCall()
        let wait = takeCallTokens(1)
        if wait > 0 { return .needsWorker(tokenWait: wait) }
        let answer = SyncCallAnswer()
        let bodyBytes = request.bodyBytes
        holdSyncBody(bodyBytes)
        run(method: request.method, arg: request.arg, reply: .http({ [self] result in
            holdSyncBody(-bodyBytes)
            answer.deliver(result)
        }), onNetworkThread: true, resolved: resolved)
        // A @nonblocking synchronous method answers before `run` returns; one written by hand
        // might still suspend.
        if let result = answer.result { return .answered(result) }
        return .later(answer)
    }

    /// Counts `bytes` more (negative: fewer) of sync-call bodies held for this session.
    private func holdSyncBody(_ bytes: Int) {
        guard bytes != 0 else { return }
        state.withLock { s in
            s.syncBodyBytes += bytes
            s.settle()
        }
    }

    /// Where a call's answer goes.
    enum Reply: Sendable {
        case socket(Int64)
        case http(@Sendable (Result<JSONValue, CallFailure>) -> Void)
    }

    /// Sends a call's answer.
    /// - Returns: `false` when a `ret` too large for the replay bound went out as code -1
    ///   `failed` instead: that is final for the call's stub (PROTOCOL.md 2.3), so no `cb`
    ///   may follow.
    @discardableResult
    private func answer(_ reply: Reply, _ result: Result<JSONValue, CallFailure>) -> Bool {
        switch reply {
        case .socket(let id):
            if case .messageTooLarge? = send(.ret(id: id, result: result)) { return false }
            return true
        case .http(let respond):
            respond(result)
            return true
        }
    }

    private func run(
        method: String, arg: JSONValue?, reply: Reply, onNetworkThread: Bool = false,
        resolved: Result<CallRoute, CallFailure>? = nil
    ) {
        let route: CallRoute
        let argument: CallArgument
        do {
            if let resolved { route = try resolved.get() } else { route = try CallRoute.resolve(method, in: bridge.registry) }
            argument = try CallArgument(wire: arg, maxDepth: bridge.configuration.maxDepth)
        } catch {
            logger.debug("call refused: \(error.message)", metadata: ["bridge.session": "\(id)", "bridge.method": "\(method.prefix(100))"])
            bridge.metrics.call(method: error.kind == .methodNotFound ? "unknown" : method, outcome: error.kind.rawValue, nanoseconds: nil)
            answer(reply, .failure(error))
            return
        }
        switch route {
        case .internalMethod(let m):
            let result = runInternal(m, argument.data, onNetworkThread: onNetworkThread)
            bridge.metrics.call(method: method, outcome: Self.outcome(result), nanoseconds: nil)
            if answer(reply, result), let stub = argument.stub, case .success(let value) = result {
                send(.cb(stub: stub, payload: .value(value, complete: true)))
            }
            if m == .closePage, case .success = result {
                end(reason: "page closed", closeCode: 1000)
            }
        case .synchronous(let source, let name):
            runSynchronous(MethodCall(interface: instance(of: source), name: name, label: method, argument: argument, reply: reply,
                                      guardedBy: onNetworkThread ? bridge.networkThreadGuard : nil))
        case .asynchronous(let source, let name):
            runAsynchronous(MethodCall(interface: instance(of: source), name: name, label: method, argument: argument, reply: reply,
                                       guardedBy: onNetworkThread ? bridge.networkThreadGuard : nil))
        }
    }

    /// The interface a call runs on: the shared one, or this session's own instance.
    private func instance(of source: InterfaceSource) -> any ExposedInterface {
        switch source {
        case .shared(let interface):
            return interface
        case .perSession(let id, let make):
            if let existing = state.withLock({ $0.instances[id] }) { return existing }
            let made = make(self)
            return state.withLock { s in
                if let existing = s.instances[id] { return existing }
                s.instances[id] = made
                return made
            }
        }
    }

    /// Whether `source` needs no factory call to give this session its interface.
    func hasInstance(of source: InterfaceSource) -> Bool {
        switch source {
        case .shared: return true
        case .perSession(let id, _): return state.withLock { $0.instances[id] != nil }
        }
    }

    static func outcome(_ result: Result<JSONValue, CallFailure>) -> String {
        switch result {
        case .success: return "ok"
        case .failure(let f): return f.kind.rawValue
        }
    }

    /// One call of an interface method, as resolved.
    private struct MethodCall: Sendable {
        let interface: any ExposedInterface
        let name: String
        /// The method as the page named it (metrics, logs).
        let label: String
        let argument: CallArgument
        let reply: Reply
        /// Set when the network thread runs the call.
        let networkThreadGuard: NetworkThreadGuard?
        /// The thread's usage at the start, when the guard checks this run closely.
        let usageBefore: NetworkThreadGuard.Usage?
        let started: ContinuousClock.Instant

        init(interface: any ExposedInterface, name: String, label: String, argument: CallArgument, reply: Reply,
             guardedBy networkThreadGuard: NetworkThreadGuard?) {
            self.interface = interface
            self.name = name
            self.label = label
            self.argument = argument
            self.reply = reply
            self.networkThreadGuard = networkThreadGuard
            usageBefore = networkThreadGuard?.startRun()
            started = .now
        }

        var elapsedNanoseconds: Int64 {
            let elapsed = ContinuousClock.now - started
            return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        }
    }

    private func failure(of error: any Error, in call: MethodCall) -> CallFailure {
        if let error = error as? ExposedCallError {
            return CallFailure(error.kind == .badArgument ? .badArgument : .methodNotFound, error.message)
        }
        logger.debug("method threw: \(error)", metadata: ["bridge.session": "\(id)", "bridge.method": "\(call.name)"])
        return CallFailure(.failed, "\(call.name) failed: \(error)")
    }

    private func runSynchronous(_ call: MethodCall) {
        // A method that needs no suspension runs here, on this thread.
        do {
            let value = try BridgeSession.$current.withValue(self) {
                try call.interface.callSynchronousMethodWithoutSuspending(named: call.name, with: call.argument.data)
            }
            if let value {
                finishSynchronous(call, .success(value), counted: false)
                return
            }
        } catch {
            finishSynchronous(call, .failure(failure(of: error, in: call)), counted: false)
            return
        }
        let counted: Bool
        if case .socket = call.reply {
            counted = true
            // The pause is set under the lock that counts, so a call ending at the same
            // moment cannot resume before this pause lands (and leave reads paused for good).
            state.withLock { s in
                s.pendingCalls += 1
                if s.pendingCalls == bridge.configuration.maxCallsPending { s.connection?.setReadsPaused(true) }
            }
        } else {
            counted = false
        }
        Task.immediate { [self] in
            let result: Result<JSONValue, CallFailure>
            do {
                result = .success(try await BridgeSession.$current.withValue(self) {
                    try await call.interface.callSynchronousMethod(named: call.name, with: call.argument.data)
                })
            } catch {
                result = .failure(failure(of: error, in: call))
            }
            finishSynchronous(call, result, counted: counted)
        }
    }

    /// Answers a synchronous call; `counted`: it was counted in `pendingCalls`.
    private func finishSynchronous(_ call: MethodCall, _ result: Result<JSONValue, CallFailure>, counted: Bool) {
        let nanoseconds = call.elapsedNanoseconds
        bridge.metrics.call(method: call.label, outcome: Self.outcome(result), nanoseconds: nanoseconds)
        checkNetworkThreadBudget(call, nanoseconds: nanoseconds)
        if answer(call.reply, result), let stub = call.argument.stub, case .success(let value) = result {
            send(.cb(stub: stub, payload: .value(value, complete: true)))
        }
        if counted {
            state.withLock { s in
                s.pendingCalls -= 1
                if s.pendingCalls == bridge.configuration.maxCallsPending - 1 { s.connection?.setReadsPaused(false) }
            }
        }
    }

    /// A `@nonblocking` method seen blocking or computing for longer than
    /// ``InlineDispatchPolicy/budgetNanoseconds`` on the network thread (repeatedly:
    /// ``NetworkThreadGuard``) runs off it from now on.
    private func checkNetworkThreadBudget(_ call: MethodCall, nanoseconds: Int64) {
        guard let networkThreadGuard = call.networkThreadGuard else { return }
        let (demote, blocked) = networkThreadGuard.finishRun(of: call.label, wallNanoseconds: nanoseconds, before: call.usageBefore)
        guard demote, let name = MethodName(call.label) else { return }
        if bridge.registry.demoteNonblocking(name) {
            let why = blocked ? "waited on something" : "computed"
            logger.warning(
                "@nonblocking method \(call.label) \(why) for \(nanoseconds / 1000) µs on the network thread (budget \(InlineDispatchPolicy.budgetNanoseconds / 1000) µs): it runs off the network thread from now on",
                metadata: ["bridge.session": "\(id)"])
        }
    }

    private func runAsynchronous(_ call: MethodCall) {
        // Sync HTTP calls count toward neither bound (PROTOCOL.md 2.4).
        var counted = true
        if case .http = call.reply { counted = false }
        let admitted = !counted || state.withLock { s -> Bool in
            guard s.runningAsync < bridge.configuration.maxAsyncCalls else { return false }
            s.runningAsync += 1
            return true
        }
        guard admitted else {
            bridge.metrics.call(method: call.label, outcome: "overloaded", nanoseconds: nil)
            answer(call.reply, .failure(CallFailure(.overloaded, "more than \(bridge.configuration.maxAsyncCalls) async calls running in this session")))
            return
        }
        var callID: Int64?
        if case .socket(let id) = call.reply, call.argument.stub != nil { callID = id }
        let asyncCall = AsyncCall(stub: call.argument.stub, callID: callID, counted: counted)
        let completion = ExposedCompletion { [self] delivery in
            switch delivery {
            case .value(let value, let complete): route(.value(value, complete: complete), of: asyncCall)
            case .failure(let message): route(.failure(CallFailure(.failed, message)), of: asyncCall)
            }
        }
        let failed: @Sendable (any Error) -> Void = { [self] error in
            let failure = failure(of: error, in: call)
            if error is ExposedCallError, asyncCall.refuseIfStarting(failure) { return }
            route(.failure(failure), of: asyncCall)
        }
        // A method that needs no suspension starts here, on this thread; others in a task.
        var task: Task<Void, Never>?
        do {
            let started = try BridgeSession.$current.withValue(self) {
                try call.interface.callAsynchronousMethodWithoutSuspending(named: call.name, with: call.argument.data, completion: completion)
            }
            if !started {
                task = Task.immediate { [self] in
                    do {
                        try await BridgeSession.$current.withValue(self) {
                            try await call.interface.callAsynchronousMethod(named: call.name, with: call.argument.data, completion: completion)
                        }
                    } catch {
                        failed(error)
                    }
                }
            }
        } catch {
            failed(error)
        }
        checkNetworkThreadBudget(call, nanoseconds: call.elapsedNanoseconds)
        // The method ran up to its first suspension. A refusal of its argument becomes the
        // call's answer; otherwise the answer is `""`, followed by what it delivered so far.
        switch asyncCall.finishStarting() {
        case .refused(let failure):
            bridge.metrics.call(method: call.label, outcome: failure.kind.rawValue, nanoseconds: nil)
            answer(call.reply, .failure(failure))
            asyncCallFinished(counted: counted)
        case .started(let held, let finished):
            bridge.metrics.call(method: call.label, outcome: "ok", nanoseconds: nil)
            answer(call.reply, .success(.string("")))
            for payload in held { forward(payload, stub: asyncCall.stub) }
            if finished {
                asyncCallFinished(counted: counted)
            } else if let callID {
                state.withLock { s in
                    if asyncCall.isRunning { s.cancellable[callID] = (asyncCall, task) }
                }
            }
        }
    }

    private func route(_ payload: ServerMessage.CallbackPayload, of call: AsyncCall) {
        switch call.accept(payload) {
        case .held, .ignored:
            return
        case .forward(let final):
            forward(payload, stub: call.stub)
            if final { asyncCallFinished(call.callID, counted: call.counted) }
        }
    }

    private func asyncCallFinished(_ callID: Int64? = nil, counted: Bool) {
        state.withLock { s in
            if counted { s.runningAsync -= 1 }
            if let callID { s.cancellable.removeValue(forKey: callID) }
        }
    }

    private func forward(_ payload: ServerMessage.CallbackPayload, stub: String?) {
        guard let stub else { return }  // fire and forget: completions are dropped
        send(.cb(stub: stub, payload: payload))
    }

    /// `cancel` (PROTOCOL.md 2.2): cancels the running async call `callID` (Swift task
    /// cancellation), drops its later completions and ends its stub with `cancelled`.
    /// Anything else is ignored.
    func cancel(callID: Int64) {
        guard let entry = state.withLock({ $0.cancellable[callID] }), entry.call.cancel(), let stub = entry.call.stub else { return }
        entry.task?.cancel()
        send(.cb(stub: stub, payload: .cancelled))
        asyncCallFinished(callID, counted: entry.call.counted)
    }

    // MARK: sync-call ordering (PROTOCOL.md 4)

    private func markStarted(through id: Int64) {
        let ready = state.withLock { s -> [@Sendable (Bool) -> Void] in
            var resumed: [@Sendable (Bool) -> Void] = []
            s.afterWaiters.removeAll { w in
                if w.after <= id {
                    resumed.append(w.resume)
                    return true
                }
                return false
            }
            return resumed
        }
        for r in ready { r(true) }
    }

    /// Sync HTTP calls that may wait for socket calls at once, per session; one more is
    /// answered code -1 `overloaded` at once.
    static let maxAfterWaiters = 1_024

    /// How a sync HTTP call's wait for socket calls ended.
    enum AfterWait: Sendable {
        case started, timedOut, full
    }

    /// Sync HTTP calls waiting for socket calls now (tests; leak checks).
    var afterWaiterCount: Int { state.withLock { $0.afterWaiters.count } }

    private func waitForStarted(through after: Int64) async -> AfterWait {
        if after == 0 { return .started }
        let timeout = bridge.configuration.afterTimeoutMs
        return await withCheckedContinuation { continuation in
            let once = OnceFlag()
            let resume: @Sendable (AfterWait) -> Void = { outcome in
                if once.claim() { continuation.resume(returning: outcome) }
            }
            let queued = state.withLock { s -> (key: Int?, outcome: AfterWait?) in
                if s.ended { return (nil, .timedOut) }
                if s.lastCall >= after { return (nil, .started) }
                if s.afterWaiters.count >= Self.maxAfterWaiters { return (nil, .full) }
                let key = s.nextAfterWaiterKey
                s.nextAfterWaiterKey += 1
                s.afterWaiters.append((key, after, { ok in resume(ok ? .started : .timedOut) }))
                return (key, nil)
            }
            guard let key = queued.key else {
                resume(queued.outcome ?? .timedOut)
                return
            }
            bridge.scheduler.schedule(afterMilliseconds: timeout) { [weak self] in
                // Leave the list at the timeout, so waiters never pile up.
                self?.state.withLock { s in s.afterWaiters.removeAll { $0.key == key } }
                resume(.timedOut)
            }
        }
    }

    // MARK: internal API (PROTOCOL.md 5)

    private func runInternal(_ method: InternalMethod, _ data: JSONValue, onNetworkThread: Bool) -> Result<JSONValue, CallFailure> {
        switch method {
        case .dsinit:
            markReady()
            return .success(.string(""))
        case .disableJavascriptDialogBlock:
            return .success(.string(""))
        case .hasNativeMethod:
            guard case .object(let o) = data, case .string(let name)? = o["name"] else {
                return .failure(CallFailure(.badArgument, "hasNativeMethod needs {\"name\": string, \"type\": \"all\"|\"syn\"|\"asyn\"}"))
            }
            return .success(.bool(CallRoute.hasNativeMethod(name, type: o["type"]?.stringValue, in: bridge.registry)))
        case .closePage:
            bridge.lifecycle.dismissed?(self)
            return .success(.string(""))
        case .returnValue:
            return receiveReturnValue(data, onNetworkThread: onNetworkThread)
        }
    }

    private func markReady() {
        typealias Released = (Bool, [(Int64, BridgeConnection?, OutboundLog.AppendError?)], [@Sendable (BridgeSession) -> Void])
        let (firstTime, outcomes, readyWaiters) = state.withLock { s -> Released in
            if s.ready { return (false, [], []) }
            s.ready = true
            let held = s.held
            s.held.removeAll()
            s.heldBytes = 0
            defer { s.settle() }
            // Encoded when they were made: numbering them here only copies bytes.
            let outcomes = held.map { h in
                let (c, e) = Self.append(h.invoke, callbackId: h.callbackId, to: &s)
                return (h.callbackId, c, e)
            }
            let waiters = s.readyWaiters
            s.readyWaiters.removeAll()
            return (true, outcomes, waiters)
        }
        for (callbackId, connection, error) in outcomes { finishInvoke(callbackId, connection, error) }
        guard firstTime else { return }
        bridge.sessionBecameReady(self)
        for body in readyWaiters { body(self) }
    }

    /// Runs `body` once the page is ready (`_dsb.dsinit`): at once, on the caller's thread,
    /// when it already is; otherwise right after the held calls were released, on the
    /// thread that processed `dsinit`. Never runs when the session ends first.
    public func whenReady(_ body: @escaping @Sendable (BridgeSession) -> Void) {
        let runNow = state.withLock { s -> Bool in
            if s.ended { return false }
            if s.ready { return true }
            s.readyWaiters.append(body)
            return false
        }
        if runNow { body(self) }
    }

    private func receiveReturnValue(_ data: JSONValue, onNetworkThread: Bool) -> Result<JSONValue, CallFailure> {
        guard case .object(let o) = data, let callbackId = o["id"]?.integerValue else {
            return .failure(CallFailure(.badArgument, "returnValue needs {\"id\": integer, \"data\": ..., \"complete\": bool}"))
        }
        let complete = o["complete"]?.boolValue ?? true
        let value = o["data"] ?? .null
        var errorText: String?
        if let e = o["error"], !e.isNull {
            errorText = e.stringValue ?? JSONWriter.string(e)
        }
        let handler = state.withLock { s -> NativeCallHandler? in
            if errorText != nil || complete { return s.nativeCalls.removeValue(forKey: callbackId) }
            return s.nativeCalls[callbackId]
        }
        guard let handler else { return .success(.string("")) }
        let event: NativeCallEvent
        if let errorText {
            event = .failed(.javaScript(errorText))
        } else if complete {
            event = .completed(value)
        } else {
            event = .progress(value)
        }
        deliver(event, to: handler, onNetworkThread: onNetworkThread)
        return .success(.string(""))
    }

    /// Runs a handler of a native-initiated call with the page's answer, answers in the
    /// order the page gave them. Handlers are application code, so the network thread
    /// queues them for a worker (``Bridge/runDeferredWork()`` starts one job per pass of the
    /// transport's loop); a worker runs one at once unless earlier answers still wait.
    private func deliver(_ event: NativeCallEvent, to handler: @escaping NativeCallHandler, onNetworkThread: Bool) {
        enum Next { case runHere, queued, startWorker }
        let next = state.withLock { s -> Next in
            if !onNetworkThread, !s.deliveringAnswers, s.answersToDeliver.isEmpty { return .runHere }
            s.answersToDeliver.append((handler, event))
            if s.deliveringAnswers { return .queued }
            s.deliveringAnswers = true
            return .startWorker
        }
        switch next {
        case .runHere: handler(event)
        case .queued: break
        case .startWorker:
            if onNetworkThread {
                bridge.deferAnswerDelivery(for: self)
            } else {
                DispatchQueue.global().async { self.deliverQueuedAnswers() }
            }
        }
    }

    /// Runs the queued handlers of page answers, in order (one worker at a time).
    func deliverQueuedAnswers() {
        while true {
            // Everything queued at once: one lock per burst, so the network thread (which
            // queues under the same lock) rarely waits for this worker.
            let batch = state.withLock { s -> Deque<(handler: NativeCallHandler, event: NativeCallEvent)> in
                if s.answersToDeliver.isEmpty {
                    s.deliveringAnswers = false
                    return []
                }
                let taken = s.answersToDeliver
                s.answersToDeliver.removeAll()
                return taken
            }
            if batch.isEmpty { return }
            for (handler, event) in batch { handler(event) }
        }
    }

    // MARK: native → page

    /// Calls the JavaScript method `method` registered by the page with `args`. The call
    /// is held until the page is ready (`_dsb.dsinit`), then sent in order. `handler`
    /// receives progress values, then exactly one final event.
    /// - Parameter timeout: fail with ``NativeCallError/timeout`` when no final answer came
    ///   in this time (`nil` = wait until the session ends).
    /// - Returns: the call's `callbackId`, or `nil` when the session has ended or the
    ///   `invoke` alone would exceed `replayMaxBytes` (the handler then got
    ///   ``NativeCallError/tooLarge(bytes:)`` at once; no `callbackId` was used).
    @discardableResult
    public func callJavaScript(
        _ method: String, args: [JSONValue] = [], timeout: Duration? = nil, handler: @escaping NativeCallHandler
    ) -> Int64? {
        let metrics = bridge.metrics
        let handler: NativeCallHandler = { event in
            switch event {
            case .progress: break
            case .completed: metrics.nativeCall(outcome: "completed")
            case .failed(.javaScript): metrics.nativeCall(outcome: "failed")
            case .failed(.timeout): metrics.nativeCall(outcome: "timeout")
            case .failed(.sessionEnded): metrics.nativeCall(outcome: "sessionEnded")
            case .failed(.tooLarge): metrics.nativeCall(outcome: "tooLarge")
            }
            handler(event)
        }
        enum Outcome { case ended, tooLarge(Int), queued(Int64, BridgeConnection?, OutboundLog.AppendError?) }
        // The arguments are encoded here, off the lock; numbering and queueing happen under
        // one lock, so invokes go out in the order made.
        let invoke = EncodedInvoke(method: method, args: args)
        let outcome = state.withLock { s -> Outcome in
            if s.ended { return .ended }
            let callbackId = s.nextCallbackId
            if !s.ready {
                // Held like any queued message: measured now (with the seq it would get if
                // released next), counted toward the replay bounds.
                let bytes = invoke.size(seq: s.log.lastSeq + Int64(s.held.count) + 1, callbackId: callbackId)
                if bytes > s.log.maxBytes { return .tooLarge(bytes) }
                s.nextCallbackId += 1
                s.nativeCalls[callbackId] = handler  // an overflow below ends the session, which fails it
                if s.held.count + s.log.keptCount + 1 > s.log.maxMessages {
                    return .queued(callbackId, nil, .boundExceeded("\(s.log.maxMessages) messages held or unacknowledged (replayMaxMessages)"))
                }
                if s.heldBytes + s.log.keptBytes + bytes > s.log.maxBytes {
                    return .queued(callbackId, nil, .boundExceeded("over \(s.log.maxBytes) bytes held or unacknowledged (replayMaxBytes)"))
                }
                s.held.append((callbackId, invoke, bytes))
                s.heldBytes += bytes
                s.settle()
                return .queued(callbackId, nil, nil)
            }
            let (c, e) = Self.append(invoke, callbackId: callbackId, to: &s)
            // Too large: never queued, and it uses no callbackId (PROTOCOL.md 2.4).
            if case .messageTooLarge(let bytes)? = e { return .tooLarge(bytes) }
            s.nextCallbackId += 1
            s.nativeCalls[callbackId] = handler
            return .queued(callbackId, c, e)
        }
        let callbackId: Int64
        switch outcome {
        case .ended:
            handler(.failed(.sessionEnded))
            return nil
        case .tooLarge(let bytes):
            handler(.failed(.tooLarge(bytes: bytes)))
            return nil
        case .queued(let id, let connection, let error):
            callbackId = id
            finishInvoke(callbackId, connection, error)
        }
        if let timeout {
            let ms = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
            bridge.scheduler.schedule(afterMilliseconds: ms) { [weak self] in
                self?.abandonJavaScriptCall(callbackId, reason: .timeout)
            }
        }
        return callbackId
    }

    /// Stops waiting for the native-initiated call `callbackId`: its handler gets `reason`
    /// (if it was still waiting) and later answers from the page are ignored.
    public func abandonJavaScriptCall(_ callbackId: Int64, reason: NativeCallError) {
        let handler = state.withLock { s -> NativeCallHandler? in
            // A call still held (the page never got ready) is never delivered now.
            if let i = s.held.firstIndex(where: { $0.callbackId == callbackId }) {
                s.heldBytes -= s.held[i].bytes
                s.held.remove(at: i)
                s.settle()
            }
            return s.nativeCalls.removeValue(forKey: callbackId)
        }
        handler?(.failed(reason))
    }

    private func finishInvoke(_ callbackId: Int64, _ connection: BridgeConnection?, _ error: OutboundLog.AppendError?) {
        finishSend(connection: connection, error: error)
        if case .messageTooLarge(let bytes)? = error {
            let handler = state.withLock { $0.nativeCalls.removeValue(forKey: callbackId) }
            handler?(.failed(.tooLarge(bytes: bytes)))
        }
    }
}

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

    /// The answer, if it came.
    var result: Result<JSONValue, CallFailure>? {
        state.withLock { s in
            if case .answered(let r) = s { return r }
            return nil
        }
    }

    func deliver(_ result: Result<JSONValue, CallFailure>) {
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

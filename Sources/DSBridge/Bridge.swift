// SPDX-License-Identifier: MIT
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Why a `hello` or a session request was refused; `code` is the WebSocket close code.
public struct SessionRefusal: Error, Sendable, Equatable {
    public let code: Int
    public let reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    static let authRefused = SessionRefusal(code: 1008, reason: "auth refused")
    static let unknownSession = SessionRefusal(code: 4004, reason: "unknown session")
    static let memoryBudget = SessionRefusal(code: 4029, reason: "memory budget")
}

/// The keystone of dsbridged: the interfaces, the sessions and the rules that tie them,
/// independent of any socket. The transport feeds it frames and HTTP requests; Swift code
/// registers interfaces on it and reaches sessions through it.
public final class Bridge: Sendable {
    /// The interfaces pages can call.
    public let registry: InterfaceRegistry
    public let configuration: BridgeConfiguration
    /// Where the bridge logs (it never logs tokens); interfaces may log here too.
    public let logger: Logger
    /// Hooks called as sessions open, become ready, are dismissed and end.
    let lifecycle: SessionLifecycle
    /// Runs work off the caller's thread: handed-off frames, answer handlers, grace
    /// periods, timeouts, and the rate clock.
    public let executor: any BridgeExecutor
    let metrics = BridgeMetrics()
    /// The daemon-wide count of bytes held for sessions against `memoryBudget` (PROTOCOL.md 2.6).
    public let memory: MemoryBudget
    /// Watches `@nonblocking` methods the network thread runs.
    let networkThreadGuard = NetworkThreadGuard()
    /// Decides who may open sessions; `nil` lets everyone in.
    let authenticator: (any SessionAuthenticator)?
    /// Where sessions write ahead in cluster mode (docs/CLUSTER.md); `nil`: one node alone.
    public let journal: (any SessionJournal)?
    /// Where finished calls go as spans (OpenTelemetry); `nil`: no tracing, nothing paid.
    public let callSpans: (any CallSpanSink)?
    /// `callSpans != nil`, and `journal != nil`, kept as flags: every call asks, and comparing
    /// an optional existential with `nil` copies it (a retain and a release).
    let tracesCalls: Bool
    let journals: Bool
    /// Handlers of native-initiated calls made on this node whose answers may come back
    /// through another node (cluster mode).
    let nativeCallOrigins = NativeCallOrigins()

    private struct Store: Sendable {
        var byToken: [String: BridgeSession] = [:]
        var byID: [String: BridgeSession] = [:]
        var perAddress: [String: Int] = [:]
    }
    /// The sessions by token, id and address. An object of its own so that the memory
    /// budget's handler can hold it weakly: a weak reference to the bridge itself gave the
    /// bridge a side table, and each of the several retains and releases of it per call took
    /// the slow path.
    private final class SessionStore: Sendable {
        let sessions = Mutex(Store())
    }
    private let sessionStore = SessionStore()
    /// Sessions with page answers for a worker to deliver (``runDeferredWork()``).
    private let answersDue = Mutex<[BridgeSession]>([])
    /// Whether `answersDue` may hold sessions (the transport checks it every loop pass).
    private let hasAnswersDue = Atomic<Bool>(false)
    /// The transport's network thread (``serviceThreadStarted()``), 0 before.
    private let serviceThread = Atomic<UInt>(0)

    /// - Parameters:
    ///   - lifecycle: hooks for sessions opening, becoming ready, being dismissed, ending.
    ///   - logger: receives the bridge's log lines (never tokens).
    ///   - executor: runs work off the caller's thread and after delays; tests pass one
    ///     they drain and advance by hand.
    ///   - authenticator: decides who may open sessions; by default the shared secret of
    ///     `configuration.authToken` when set, else everyone.
    ///   - journal: cluster mode: where sessions write ahead so that another node can
    ///     continue them (docs/CLUSTER.md); `nil` (the default) for one node alone.
    ///   - callSpans: receives every finished call as a span (`DSBridgeTracing` makes
    ///     OpenTelemetry spans of them); `nil` (the default): no tracing.
    public init(
        configuration: BridgeConfiguration = BridgeConfiguration(),
        registry: InterfaceRegistry = InterfaceRegistry(),
        logger: Logger = Logger(label: "dsbridge"),
        lifecycle: SessionLifecycle = SessionLifecycle(),
        executor: any BridgeExecutor = DispatchBridgeExecutor(),
        authenticator: (any SessionAuthenticator)? = nil,
        journal: (any SessionJournal)? = nil,
        callSpans: (any CallSpanSink)? = nil
    ) {
        self.executor = executor
        self.journal = journal
        self.callSpans = callSpans
        tracesCalls = callSpans != nil
        journals = journal != nil
        self.authenticator = authenticator ?? configuration.authToken.map { SharedSecretAuthenticator(secret: $0) }
        self.configuration = configuration
        self.registry = registry
        self.logger = logger
        self.lifecycle = lifecycle
        memory = MemoryBudget(limit: configuration.memoryBudget)
        memory.whenOverBudget(retryingOn: executor) { [weak sessionStore, executor, logger] memory in
            guard let sessionStore else { return }
            let sessions = sessionStore.sessions.withLock { Array($0.byID.values) }
            Self.shedMemory(sessions: sessions, memory: memory, executor: executor, logger: logger)
        }
    }

    /// Registers `interface` under `namespace` (`nil`/`""` = none); replaces an earlier one.
    public func addInterface(_ interface: any ExposedInterface, by namespace: String? = nil) {
        registry.addInterface(interface, by: namespace)
    }

    /// Registers a per-session interface factory under `namespace` (see
    /// ``InterfaceRegistry/addInterfaceFactory(by:_:)``).
    public func addInterfaceFactory<Interface: ExposedInterface>(
        by namespace: String? = nil, _ make: @escaping @Sendable (BridgeSession) -> Interface
    ) {
        registry.addInterfaceFactory(by: namespace, make)
    }

    /// Removes the interface of `namespace`.
    public func removeInterface(by namespace: String? = nil) {
        registry.removeInterface(by: namespace)
    }

    // MARK: sessions

    /// Every session that has not ended.
    public var sessions: [BridgeSession] {
        sessionStore.sessions.withLock { Array($0.byID.values) }.sorted { $0.createdAt < $1.createdAt }
    }

    /// The session with public id `id`.
    public func session(id: String) -> BridgeSession? {
        sessionStore.sessions.withLock { $0.byID[id] }
    }

    /// The session a token names, if it has not ended.
    public func session(token: String) -> BridgeSession? {
        sessionStore.sessions.withLock { $0.byToken[token] }
    }

    /// A new socket (transport thread). Frames go to the returned connection.
    /// - Parameter headers: the upgrade request's headers (lower-case names) for the authenticator.
    public func connect(
        peerAddress: String, origin: String?, headers: [String: String] = [:], waker: any ConnectionWaker
    ) -> BridgeConnection {
        BridgeConnection(bridge: self, peerAddress: peerAddress, origin: origin, headers: headers, waker: waker)
    }

    /// Asks the authenticator (none configured accepts all).
    public func authorizes(_ request: SessionRequest) -> Bool {
        authenticator?.authorize(request) ?? true
    }

    /// Creates a session without a socket (`POST /dsbridge/session`); it expires after
    /// `graceMs` unless a socket attaches.
    /// `tags`: the session's tags for group calls (the authenticator's, usually).
    public func createSession(peerAddress: String, origin: String?, tags: [String] = []) throws(SessionRefusal) -> BridgeSession {
        let session = try makeSession(peerAddress: peerAddress, origin: origin, tags: tags)
        SessionReconnect(bridge: self).scheduleExpiry(of: session, generation: 0)
        return session
    }

    /// A new session, kept under the session limits (``SessionReconnect`` attaches its
    /// socket).
    func makeSession(peerAddress: String, origin: String?, tags: [String] = []) throws(SessionRefusal) -> BridgeSession {
        // Over the memory budget no new session opens (resumes are not new).
        guard memory.admitsNewSessions else {
            if let line = memory.recordRefused(nowMs: executor.uptimeMilliseconds) { logger.warning("\(line)") }
            throw .memoryBudget
        }
        let address = Self.normalizedAddress(peerAddress)
        let session = BridgeSession(
            bridge: self, id: SessionSecrets.publicID(), token: SessionSecrets.token(),
            peerAddress: address, origin: origin)
        let limit = configuration
        let refusal = sessionStore.sessions.withLock { s -> SessionRefusal? in
            if s.byID.count >= limit.maxSessions {
                return SessionRefusal(code: 4029, reason: "too many sessions")
            }
            if s.perAddress[address, default: 0] >= limit.maxSessionsPerAddress {
                return SessionRefusal(code: 4029, reason: "too many sessions from this address")
            }
            s.byID[session.id] = session
            s.byToken[session.token] = session
            s.perAddress[address, default: 0] += 1
            return nil
        }
        if let refusal { throw refusal }
        if !tags.isEmpty { session.setTags(tags) }
        // Cluster mode: the session's record is written at once (not with its first call), so
        // a page whose node dies before it called anything can still resume elsewhere.
        session.journalSessionCreated()
        logger.debug("session opened", metadata: ["bridge.session": "\(session.id)", "bridge.peer": "\(address)"])
        metrics.sessionOpened()
        lifecycle.opened?(session)
        return session
    }

    /// The tags the authenticator gives a new session it let in (none without one).
    public func tags(for request: SessionRequest) -> [String] {
        authenticator?.tags(for: request) ?? []
    }

    /// Asks the authenticator about a `hello` on `connection`.
    func authorizes(_ hello: PageMessage.Hello, connection: BridgeConnection) -> Bool {
        authorizes(
            SessionRequest(
                auth: hello.auth, headers: connection.requestHeaders,
                peerAddress: connection.peerAddress, resumingToken: hello.token))
    }

    /// Logs a refused hello.
    func logAuthRefused(_ connection: BridgeConnection) {
        logger.info("hello refused: auth", metadata: ["bridge.peer": "\(connection.peerAddress)"])
    }

    /// Removes an ended session.
    /// `session` has page answers queued for a worker: the next ``runDeferredWork()`` starts it.
    func deferAnswerDelivery(for session: BridgeSession) {
        answersDue.withLock { $0.append(session) }
        hasAnswersDue.store(true, ordering: .releasing)
    }

    /// The transport calls it on its network thread before the first pass of its loop; from
    /// then on ``runDeferredWork()`` ends each pass there.
    public func serviceThreadStarted() {
        serviceThread.store(UInt(pthread_self()), ordering: .releasing)
    }

    /// Whether the caller is the transport's network thread (``serviceThreadStarted()``),
    /// whose loop ends every pass with ``runDeferredWork()``.
    public var isOnServiceThread: Bool {
        let thread = serviceThread.load(ordering: .acquiring)
        return thread != 0 && pthread_equal(pthread_t(thread), pthread_self()) != 0
    }

    /// Hands work the network thread deferred (handlers of page answers, which are
    /// application code) to one worker job. A transport calls it once per pass of its loop,
    /// after handing over the frames it read (``BridgeConnection/receive(_:)``), so one
    /// worker wake-up serves every session's answers of that pass; then tells the journal
    /// the pass ended (``SessionJournal/serviceLoopPassEnded()``).
    public func runDeferredWork() {
        handAnswersToWorker()
        // Then the pass' journal round, which the network thread may write itself.
        journal?.serviceLoopPassEnded()
    }

    private func handAnswersToWorker() {
        guard hasAnswersDue.exchange(false, ordering: .acquiringAndReleasing) else { return }
        let sessions = answersDue.withLock { due -> [BridgeSession] in
            if due.isEmpty { return [] }
            let taken = due
            due.removeAll(keepingCapacity: true)
            return taken
        }
        guard !sessions.isEmpty else { return }
        executor.execute {
            for session in sessions { session.deliverQueuedAnswers() }
        }
    }

    /// Continues a session a journal holds (cluster mode: a takeover, docs/CLUSTER.md): the
    /// session is made from `snapshot` and kept like any other (without a socket yet; the
    /// caller attaches one or it expires after `graceMs`), then gets its final errors for
    /// calls of lost nodes and its late messages (``SessionReconnect/restore(_:)``).
    /// - Returns: `nil` when the snapshot cannot be continued exactly (its messages are not
    ///   the unacknowledged ones), or another session with this id is here.
    public func restoreSession(_ snapshot: SessionSnapshot) -> BridgeSession? {
        SessionReconnect(bridge: self).restore(snapshot)
    }

    /// Keeps a restored session in the session store. - Returns: `false` when another
    /// session with its id or token is here.
    func keepRestored(_ session: BridgeSession) -> Bool {
        sessionStore.sessions.withLock { s -> Bool in
            if s.byID[session.id] != nil || s.byToken[session.token] != nil { return false }
            s.byID[session.id] = session
            s.byToken[session.token] = session
            s.perAddress[session.peerAddress, default: 0] += 1
            return true
        }
    }

    /// Delivers a page's answer to a native-initiated call made on this node, which came
    /// back through another node (cluster mode). `ref` is the number in the call's origin.
    /// `pageCall`: the page's call that brought the answer, when the sending node said
    /// (an answer passed twice is delivered once).
    public func deliverForwardedAnswer(ref: Int64, _ event: NativeCallEvent, pageCall: Int64? = nil) {
        nativeCallOrigins.deliver(ref: ref, event, pageCall: pageCall)
    }

    /// Cluster mode: keeps `handler` for the answers of a native call made from this node
    /// in a session on another node; they come back with ``deliverForwardedAnswer(ref:_:)``.
    /// - Returns: the number for the call's origin (`NODE|REF`) and the handler to use (it
    ///   forgets itself with its final event).
    package func registerNativeCallHandler(_ handler: @escaping NativeCallHandler) -> (ref: Int64, handler: NativeCallHandler) {
        nativeCallOrigins.register(handler)
    }

    /// Forgets the handler `ref` without calling it (the call never started).
    package func forgetNativeCallHandler(ref: Int64) {
        nativeCallOrigins.forget(ref: ref)
    }

    /// A session that moved to another node leaves the store (it only finishes its calls).
    func forgetMoved(_ session: BridgeSession) {
        forget(session)
        metrics.sessionClosed(closeCode: nil)
    }

    func forget(_ session: BridgeSession) {
        sessionStore.sessions.withLock { s in
            guard s.byID.removeValue(forKey: session.id) != nil else { return }
            s.byToken.removeValue(forKey: session.token)
            let n = s.perAddress[session.peerAddress, default: 1] - 1
            s.perAddress[session.peerAddress] = n > 0 ? n : nil
        }
    }

    func sessionBecameReady(_ session: BridgeSession) {
        lifecycle.ready?(session)
    }

    // MARK: sync HTTP calls

    /// Runs `POST /dsbridge/call` for the session `token` names.
    /// - Returns: the `{"code","data"}` answer's result, or `nil` for an unknown token (401).
    public func syncCall(token: String, request: SyncCallRequest) async -> Result<JSONValue, CallFailure>? {
        guard let session = session(token: token) else { return nil }
        return await session.syncCall(request)
    }

    /// What the transport's network thread may do with a sync HTTP call.
    public enum SyncCallStart: Sendable {
        /// No session has this token.
        case unknownToken
        /// Answered on the calling thread.
        case answered(Result<JSONValue, CallFailure>)
        /// Started on the calling thread; the answer comes later.
        case later(SyncCallAnswer)
        /// Finish it with ``finishSyncCall(_:)`` on a worker (it may wait).
        case needsWorker(SyncCallContinuation)
    }

    /// A sync HTTP call the network thread handed to a worker.
    public struct SyncCallContinuation: Sendable {
        let session: BridgeSession
        let request: SyncCallRequest
        let tokenWait: Int?
    }

    /// Starts a sync HTTP call on the transport's network thread: a call of a `@nonblocking`
    /// synchronous method whose preceding socket calls started is answered at once, with
    /// no thread hop (``InlineDispatchPolicy``); anything else needs ``finishSyncCall(_:)``.
    public func startSyncCall(token: String, request: SyncCallRequest) -> SyncCallStart {
        guard let session = session(token: token) else { return .unknownToken }
        switch session.syncCallOnNetworkThread(request) {
        case .answered(let result): return .answered(result)
        case .later(let answer): return .later(answer)
        case .needsWorker(let tokenWait):
            return .needsWorker(SyncCallContinuation(session: session, request: request, tokenWait: tokenWait))
        }
    }

    /// Finishes a sync HTTP call ``startSyncCall(token:request:)`` could not answer.
    public func finishSyncCall(_ call: SyncCallContinuation) async -> Result<JSONValue, CallFailure> {
        await call.session.syncCall(call.request, tokenWait: call.tokenWait)
    }

    // MARK: memory budget

    /// One shedding pass (PROTOCOL.md 2.6), on ``SheddingThread``, started when the count
    /// crosses 90% of the budget: ends the largest holders (``MemoryShedding``) until the
    /// count is no longer over 90% or every session is within its share. It looks at every
    /// session, so it runs only while over 90%, and never on the network thread.
    private static func shedMemory(sessions: [BridgeSession], memory: MemoryBudget, executor: any BridgeExecutor, logger: Logger) {
        let holdings = sessions.map(\.memoryHeld)
        let victims = MemoryShedding.victims(holdings: holdings, total: memory.held, budget: memory.limit)
        for i in victims {
            let session = sessions[i]
            guard session.endForMemoryBudget() else { continue }
            if let line = memory.recordEnded(bytes: holdings[i], nowMs: executor.uptimeMilliseconds) { logger.warning("\(line)") }
        }
        memory.passFinished(endedAny: !victims.isEmpty)
    }

    /// Ends every session (shutdown).
    public func endAllSessions(closeCode: Int?) {
        for s in sessions { s.end(reason: "server stopping", closeCode: closeCode) }
    }

    /// IPv4-mapped IPv6 addresses count as their IPv4 address.
    static func normalizedAddress(_ address: String) -> String {
        let lower = address.lowercased()
        if lower.hasPrefix("::ffff:"), lower.contains(".") { return String(lower.dropFirst(7)) }
        return lower
    }
}

func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var diff: UInt8 = 0
    for i in 0..<a.count { diff |= a[i] ^ b[i] }
    return diff == 0
}

// SPDX-License-Identifier: MIT

/// A page's socket coming to its session, and leaving it: the whole of a reconnect, in the
/// order it happens (PROTOCOL.md 2.1 and 2.2; docs/CLUSTER.md for a takeover).
///
/// 1. A frame brings a `hello` (``BridgeConnection``, as ``FrameDispatch/hello(resuming:isHeldHere:)``
///    decides). In cluster mode, a token no session of this node holds is first taken over
///    (``takeOver(_:token:on:then:)``): the journal hands its snapshot to
///    ``restore(_:)``, which keeps the session like one made without a socket, and the
///    frame is dispatched again from its hello, already authorized.
/// 2. ``hello(_:on:authorized:)``: the authenticator, then the session the token names
///    (resumed), or a new one (no token).
/// 3. ``attach(_:to:ack:resumed:)``: under the session's lock the socket becomes its socket
///    (``SessionState/attach(_:ack:)``, ``SocketAttachment``), the log rewinds to the page's
///    `ack` for the replay, the socket adopts the session with its `welcome`
///    (``BridgeConnection/adopt(_:welcome:hold:)``), and the socket it replaces is closed
///    4009. A socket that closed meanwhile restores the previous one (or, none left, starts
///    a grace period again).
/// 4. ``socketClosed(_:of:)``: the attached socket closed; the session waits `graceMs` for
///    another one (``scheduleExpiry(of:generation:)``), then ends.
///
/// Thread: any (the hello is handled where its frame is dispatched: a worker, or after a
/// takeover the worker the journal's answer runs on).
struct SessionReconnect {
    let bridge: Bridge

    // MARK: 1. takeover (cluster mode)

    /// How a takeover began.
    enum TakeOverStart: Sendable, Equatable {
        /// Under way: `then` gets its outcome, on a worker.
        case underway
        /// Refused at once (the authenticator): close the socket with this.
        case refused(SessionRefusal)
        /// No journal (not cluster mode): nothing to take over.
        case noJournal
    }

    /// A `hello` names `token`, which no session of this node holds: after the
    /// authenticator, the journal takes the session over; `then` continues with the
    /// outcome, on a worker: dispatch the frame again from its hello (authorized), or
    /// close with the refusal.
    func takeOver(
        _ hello: PageMessage.Hello, token: String, on connection: BridgeConnection,
        then: @escaping @Sendable (Result<Void, SessionRefusal>) -> Void
    ) -> TakeOverStart {
        guard let journal = bridge.journal else { return .noJournal }
        guard bridge.authorizes(hello, connection: connection) else {
            bridge.logAuthRefused(connection)
            return .refused(.authRefused)
        }
        let executor = bridge.executor
        journal.takeOver(token: token, ack: hello.ack, peerAddress: connection.peerAddress) { result in
            executor.execute { then(result.map { _ in () }) }
        }
        return .underway
    }

    /// Continues a session the journal holds (``Bridge/restoreSession(_:)``): made from
    /// `snapshot` and kept like any other, without a socket yet (it expires unless one
    /// attaches), then its calls of lost nodes get their final errors and its late
    /// messages are appended. Native calls whose origin is this node answer their handlers
    /// here; others go to `snapshot.nativeCallHandler`.
    /// - Returns: `nil` when the snapshot cannot be continued exactly, or another session
    ///   with this id or token is here.
    func restore(_ snapshot: SessionSnapshot) -> BridgeSession? {
        let ownPrefix = "\(bridge.journal?.nodeID ?? "")|"
        var handlers: [Int64: NativeCallHandler] = [:]
        for call in snapshot.nativeCalls {
            if call.origin.hasPrefix(ownPrefix), let ref = Int64(call.origin.dropFirst(ownPrefix.count)) {
                let origins = bridge.nativeCallOrigins
                handlers[call.callbackId] = { event in origins.deliver(ref: ref, event) }
            } else if let forward = snapshot.nativeCallHandler?(call.origin, call.callbackId) {
                handlers[call.callbackId] = forward
            }
        }
        guard let session = BridgeSession(bridge: bridge, restoring: snapshot, handlers: handlers),
            bridge.keepRestored(session)
        else { return nil }
        bridge.logger.info("session taken over", metadata: ["bridge.session": "\(session.id)"])
        bridge.metrics.sessionOpened()
        scheduleExpiry(of: session, generation: 0)
        finishRestoring(session, snapshot)
        return session
    }

    /// Continues `session`, restored from `snapshot`: final errors for the calls of lost
    /// nodes, then the late messages, numbered and journaled like any message.
    private func finishRestoring(_ session: BridgeSession, _ snapshot: SessionSnapshot) {
        // Ready in the journal with invokes still held: its dsinit was accepted on a node
        // lost before it ran there. The page will not send another: release them here.
        if snapshot.ready, !snapshot.held.isEmpty {
            bridge.executor.execute { session.markReady(site: .worker) }
        }
        for node in snapshot.lostNodes {
            let calls = snapshot.run.filter { $0.node == node }.map { ($0.id, $0.entry) }
            if !calls.isEmpty { session.sendFinalErrors(calls, node: node) }
        }
        session.appendLate(snapshot.late)
    }

    // MARK: 2. hello

    /// Handles a `hello` on `connection`: checks auth, finds (resume) or creates the
    /// session, attaches it and queues `welcome`.
    /// `authorized`: the authenticator accepted this hello already (before a takeover).
    func hello(
        _ hello: PageMessage.Hello, on connection: BridgeConnection, authorized: Bool = false
    ) -> Result<BridgeSession, SessionRefusal> {
        guard authorized || bridge.authorizes(hello, connection: connection) else {
            bridge.logAuthRefused(connection)
            return .failure(.authRefused)
        }
        let session: BridgeSession
        let resumed: Bool
        if let token = hello.token {
            guard let existing = bridge.session(token: token) else { return .failure(.unknownSession) }
            session = existing
            resumed = true
        } else {
            do {
                let request = SessionRequest(
                    auth: hello.auth, headers: connection.requestHeaders, peerAddress: connection.peerAddress)
                session = try bridge.makeSession(
                    peerAddress: connection.peerAddress, origin: connection.origin, tags: bridge.tags(for: request))
            } catch {
                return .failure(error)
            }
            resumed = false
        }
        guard attach(connection, to: session, ack: hello.ack, resumed: resumed) else {
            // The socket closed while the hello ran: a session made for it ends at once,
            // so it never holds a place under the session limits.
            if !resumed { session.end(reason: "socket closed before its welcome", closeCode: nil) }
            return .failure(.unknownSession)
        }
        return .success(session)
    }

    // MARK: 3. attach

    /// Attaches `connection` to `session`, replacing (4009) any other; queues `welcome`
    /// and everything after `ack` for it. Fails when the session has ended or the socket
    /// closed first.
    func attach(_ connection: BridgeConnection, to session: BridgeSession, ack: Int64, resumed: Bool) -> Bool {
        // When the socket closed before its welcome and no other socket is attached, the
        // session needs a grace period again (the attempt moved the detach generation, so
        // an expiry already scheduled no longer applies): every session ends or expires.
        var expiryGeneration: Int?
        var holdsWelcome = false
        let configuration = bridge.configuration
        let attached = session.transition { s in
            guard case .attached(let previous) = s.attach(connection, ack: ack) else { return false }
            let welcome = ServerMessage.welcome(
                session: session.id, token: session.token, lastCall: s.lastCall, resumed: resumed,
                heartbeatMs: configuration.heartbeatMs
            ).encoded(seq: 0)
            // A new session's welcome waits for its record (cluster mode): the page must not
            // hold a token that no other node could resume.
            holdsWelcome = !resumed && s.journal?.records.creationPending == true
            guard connection.adopt(session, welcome: welcome, hold: holdsWelcome) else {
                expiryGeneration = s.attachFailed(restoring: previous)
                return false
            }
            if let previous, previous !== connection {
                previous.dropSession(session)
                previous.requestClose(code: 4009, reason: "replaced by a newer socket")
            }
            if s.pausesReads(maxPending: configuration.maxCallsPending) { connection.setReadsPaused(true) }
            return true
        }
        if let expiryGeneration { scheduleExpiry(of: session, generation: expiryGeneration) }
        if attached, holdsWelcome { session.whenRecorded { connection.releaseWelcome() } }
        return attached
    }

    // MARK: 4. the socket closes

    /// `connection`, attached to `session`, closed: the session waits `graceMs` for
    /// another socket.
    func socketClosed(_ connection: BridgeConnection, of session: BridgeSession) {
        guard let generation = session.transition({ $0.detach(connection) }) else { return }
        scheduleExpiry(of: session, generation: generation)
    }

    /// Starts the grace period `generation` of `session`, which no socket is attached to:
    /// it ends when no socket attached by the end of it.
    func scheduleExpiry(of session: BridgeSession, generation: Int) {
        let grace = bridge.configuration.graceMs
        bridge.executor.schedule(afterMilliseconds: grace) {
            if session.transition({ $0.isExpired(generation: generation) }) {
                session.end(reason: "expired after \(grace) ms without a socket", closeCode: nil)
            }
        }
    }
}

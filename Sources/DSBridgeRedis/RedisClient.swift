// SPDX-License-Identifier: MIT
import Logging
import Synchronization

/// A Redis connection for pipelined writes from many callers: one hiredis connection, driven
/// by one dedicated thread, that sends every batch queued since its last round trip in one
/// write and then reads all their replies (group commit).
///
/// ```swift
/// let client = RedisClient(endpoint: try RedisEndpoint(parsing: "redis://127.0.0.1:6379"), logger: logger)
/// client.onConnected = { connection in _ = try connection.send([script.loadCommand]) }
/// client.start()
/// client.send([RedisCommand("INCR", "n")]) { result in ... }   // on the client's thread
/// let replies = try await client.send([RedisCommand("GET", "n")])
/// ```
///
/// - A batch's commands are written together and in order; its replies come back in the same
///   order. A Redis error reply is a ``RedisValue/error(_:)`` in the array, not a failure.
/// - While the client is not connected, a batch fails at once with
///   ``RedisClientError/unavailable(_:)``: callers learn at once that Redis is down. Batches
///   are not kept for a later connection.
/// - A lost connection, or no reply within `commandTimeoutMs`, fails the batches in flight
///   with ``RedisClientError/unavailable(_:)`` (their outcome is unknown) and the client
///   reconnects by itself: 100 ms doubling to 5 s between attempts, with jitter. On every
///   connection it selects the endpoint's database and calls ``onConnected`` before any batch
///   is written.
/// - Completions run on the client's thread (or, for a batch that fails at once, on the
///   caller's thread before `send` returns): they must not block, or every other batch
///   waits. Hand long work to another thread.
///
/// Threads: every method may be called from any thread. The hiredis connection is used by
/// one thread at a time (hiredis is not thread-safe): the client's thread, or, while that
/// thread sleeps with nothing queued or in flight, a sender writing a small batch itself
/// under the client's lock (it goes out without waiting for the thread to wake; the thread
/// reads the reply).
///
/// What hiredis 0.14 brings with it:
/// - The command timeout bounds each `read`/`write` of the socket (SO_RCVTIMEO/SO_SNDTIMEO),
///   not a whole batch: a large reply that keeps trickling in can take longer.
/// - After any error (timeout included) a hiredis context is unusable, and a late reply would
///   put the pipeline out of step: the connection is always dropped and made anew.
/// - Replies nested more than 8 arrays deep (a Lua table of tables...) are a protocol error
///   for hiredis 0.14: the batch fails with ``RedisClientError/unavailable(_:)`` and the
///   client reconnects.
/// - hiredis writes with `write(2)`: the client's thread blocks SIGPIPE, so a write to a
///   closed connection fails with EPIPE instead of killing a process that does not ignore it.
/// - A host name is resolved (blocking getaddrinfo) at every attempt, and only the
///   first address is tried: prefer numeric addresses or a Unix socket.
/// - TCP connections get keep-alive (hiredis' 15 s interval) and TCP_NODELAY.
public final class RedisClient: Sendable {
    /// Receives a batch's replies, in command order, or why there are none.
    public typealias Completion = @Sendable (Result<[RedisValue], RedisClientError>) -> Void
    /// Runs on the client's thread after every (re)connection, before any batch is written.
    /// Throwing drops the connection, which is then retried like a failed one.
    public typealias ConnectedHandler = @Sendable (RedisSetupConnection) throws -> Void
    /// Runs on the client's thread when a connection that was up is lost (not on ``stop()``).
    public typealias DisconnectedHandler = @Sendable (RedisClientError) -> Void

    /// What is sent in one batch: fixed commands, or commands built when the thread writes.
    enum Work: Sendable {
        case commands([RedisCommand])
        case prepare(@Sendable () -> [RedisCommand]?)
    }

    struct Batch: Sendable {
        var work: Work
        var completion: Completion
    }

    /// The thread's connection lent to senders while the thread sleeps in poll.
    ///
    /// `@unchecked Sendable`: a hiredis context is not thread-safe, but it is used by one
    /// thread at a time: the client's thread puts it here under the state lock just before it
    /// sleeps (it then touches only the socket's number, in poll) and takes it back under
    /// the lock when it wakes, before it uses the connection again; a sender uses it only
    /// while holding that lock, or after taking it out under the lock for a prepared batch
    /// (``State/lentToSender``): the thread then leaves it alone until it is given back.
    struct LentConnection: @unchecked Sendable {
        let connection: HiredisConnection
    }

    struct State {
        var stopping = false
        var connected = false
        /// Why a batch sent now fails (when not connected).
        var unavailableReason = "the client is not started (call start())"
        var queue: [Batch] = []
        /// The thread waits in poll for the socket or a wake: a new batch must wake it.
        var threadIdle = false
        /// The connection, while the thread sleeps between round trips with nothing in flight:
        /// a small batch of commands sent then is written by the sender itself (one thread
        /// wake-up less on its way); the thread, woken after the write, reads the reply. Set
        /// and cleared by the thread under the lock, used by senders only under the lock.
        var idleConnection: LentConnection?
        /// Batches written by their senders (``idleConnection``), oldest first: their
        /// replies come before those of any later round trip.
        var written: [(batch: Batch, commands: [RedisCommand])] = []
        /// A sender took the idle connection out to build a batch and write it
        /// (``sendIfIdle(prepare:completion:)``): the thread, woken meanwhile, waits until it
        /// is given back (with the batch in ``written``) before it uses the connection.
        var lentToSender = false
        /// The thread woke while the connection was lent and waits for it: giving it back
        /// must wake it.
        var threadAwaitsLender = false
        var onConnected: ConnectedHandler?
        var onDisconnected: DisconnectedHandler?
    }

    /// The server and database.
    public let endpoint: RedisEndpoint
    /// The client's name: the thread's name (cut to 15 bytes) and `redis.client` in logs.
    public let name: String
    /// The longest wait for a connection to be made, in milliseconds.
    public let connectTimeoutMs: Int
    /// The longest wait for a reply (each read of the socket), in milliseconds; longer
    /// fails the batches in flight and drops the connection.
    public let commandTimeoutMs: Int
    /// The most batches queued and not yet written; more fail with
    /// ``RedisClientError/overloaded(limit:)``.
    public let maxQueuedBatches: Int

    let logger: Logger
    let state = Mutex(State())
    let wake = WakeSignal()
    let thread = RedisThread()
    let connectedFlag = Atomic<Bool>(false)
    let roundTripCount = Atomic<UInt64>(0)
    let commandCount = Atomic<UInt64>(0)
    let failedBatchCount = Atomic<UInt64>(0)
    let connectionCount = Atomic<UInt64>(0)

    /// A client for `endpoint`; nothing happens until ``start()``.
    /// - Parameters:
    ///   - endpoint: the server, and the database selected on every connection.
    ///   - name: the thread's name (`top -H`) and the `redis.client` log metadata.
    ///   - logger: connection events at info/warning, attempts at debug; the library never
    ///     bootstraps logging.
    ///   - connectTimeoutMs: the longest wait for a connection (default 1 s).
    ///   - commandTimeoutMs: the longest wait for a reply (default 2 s). Commands that block
    ///     on the server (`BLPOP` with a longer timeout) do not fit in this client.
    ///   - maxQueuedBatches: the most batches waiting for the thread (default 10,000).
    public init(
        endpoint: RedisEndpoint, name: String = "dsbridge-redis", logger: Logger, connectTimeoutMs: Int = 1000, commandTimeoutMs: Int = 2000,
        maxQueuedBatches: Int = 10_000
    ) {
        self.endpoint = endpoint
        self.name = name
        self.connectTimeoutMs = max(1, connectTimeoutMs)
        self.commandTimeoutMs = max(1, commandTimeoutMs)
        self.maxQueuedBatches = max(1, maxQueuedBatches)
        var logger = logger
        logger[metadataKey: "redis.client"] = "\(name)"
        logger[metadataKey: "redis.endpoint"] = "\(endpoint)"
        self.logger = logger
    }

    // MARK: Handlers

    /// Runs on the client's thread after every (re)connection and `SELECT`, before any batch
    /// is written and before ``isConnected`` turns true (a `send` from it fails): reload
    /// scripts or resync with the ``RedisSetupConnection`` it receives. Set it before
    /// ``start()``.
    public var onConnected: ConnectedHandler? {
        get { state.withLock { $0.onConnected } }
        set { state.withLock { $0.onConnected = newValue } }
    }

    /// Runs on the client's thread when a connection that was up is lost, with the reason,
    /// after the batches in flight have failed. Set it before ``start()``.
    public var onDisconnected: DisconnectedHandler? {
        get { state.withLock { $0.onDisconnected } }
        set { state.withLock { $0.onDisconnected = newValue } }
    }

    // MARK: Life cycle

    /// Starts the client's thread, which connects (and keeps reconnecting); returns at once.
    /// Batches sent before the first connection fail with ``RedisClientError/unavailable(_:)``.
    /// Later calls do nothing; a stopped client does not start again. The thread keeps the
    /// client alive until ``stop()``.
    public func start() {
        state.withLock { state in
            if !state.stopping && !state.connected { state.unavailableReason = "not connected to \(endpoint) yet: the client is connecting" }
        }
        thread.start(name: name) { [self] in run() }
    }

    /// Stops the client and waits for its thread to end: a round trip in flight finishes (at
    /// most about the command timeout), batches still queued fail with
    /// ``RedisClientError/closed``, the connection is closed. Later sends fail with
    /// ``RedisClientError/closed``. Called from the client's thread (a completion), it does
    /// not wait. Idempotent.
    public func stop() {
        state.withLock { $0.stopping = true }
        guard thread.wasStarted else {
            failQueued(with: .closed)
            return
        }
        wake.signal()
        thread.join()
    }

    // MARK: Sending

    /// The largest batch a sender writes itself (``sendIfIdle(_:completion:)``).
    static let maxImmediateBytes = 16 * 1024

    /// Queues `commands` to be written together at the client's next round trip; `completion`
    /// receives their replies in order, on the client's thread. A small batch sent while the
    /// client's thread sleeps with nothing queued or in flight is written at once by the
    /// caller instead (``sendIfIdle(_:completion:)``); its reply comes the same way.
    ///
    /// It fails at once, on the caller's thread, when the client is not connected or stopped,
    /// its queue is full, or a command cannot be sent; an empty batch succeeds at once with
    /// no replies.
    public func send(_ commands: [RedisCommand], completion: @escaping Completion) {
        if let problem = commands.lazy.compactMap(\.problem).first {
            completion(.failure(.invalidCommand(problem)))
            return
        }
        guard !commands.isEmpty else {
            completion(.success([]))
            return
        }
        let batch = Batch(work: .commands(commands), completion: completion)
        if writeNow(batch, commands) { return }
        enqueue(batch)
    }

    /// Sends `commands` only if they can be written now, on the caller's thread: the
    /// client's thread sleeps with nothing queued or in flight. Otherwise nothing is sent
    /// and `completion` is not called. For a caller that coalesces its own work while the
    /// client is busy and wants a lone batch out without waking the thread first.
    /// - Returns: whether the batch was taken (its completion then runs on the client's
    ///   thread, as with ``send(_:completion:)``).
    public func sendIfIdle(_ commands: [RedisCommand], completion: @escaping Completion) -> Bool {
        guard !commands.isEmpty, commands.allSatisfy({ $0.problem == nil }) else { return false }
        return writeNow(Batch(work: .commands(commands), completion: completion), commands)
    }

    /// Writes `batch` on the caller's thread if the client's thread sleeps with nothing
    /// queued or in flight (a lone batch at low load: it goes out before the thread wakes,
    /// which then reads its reply). - Returns: whether it was taken (written, or failed to
    /// be: the thread then finds the connection broken and fails it).
    private func writeNow(_ batch: Batch, _ commands: [RedisCommand]) -> Bool {
        // Small batches only: with nothing in flight the socket's buffer takes them at once,
        // so the caller never waits on Redis (even a stalled one).
        guard RESPEncoding.estimatedSize(of: commands) <= Self.maxImmediateBytes else { return false }
        let outcome = state.withLock { state -> Bool? in
            guard !state.stopping, state.connected, state.queue.isEmpty, state.written.isEmpty,
                let connection = state.idleConnection?.connection
            else { return nil }
            state.written.append((batch, commands))
            // The reply wakes the thread (it polls the socket); batches queued meanwhile
            // wait for that, and go out after it.
            state.threadIdle = false
            // A failed write leaves the connection unusable: the thread, woken by the
            // socket's error, reads the failure and fails the batch with the others in flight.
            return connection.append(commands) ?? connection.flush() == nil
        }
        return outcome != nil
    }

    /// Queues a batch whose commands `prepare` builds on the client's thread just before it
    /// writes them, so a caller coalescing work decides what to write at the last moment.
    /// `prepare` returning `nil` or no commands sends nothing: `completion` gets no replies.
    /// `prepare` must not block, like a completion. Fails at once like
    /// ``send(_:completion:)`` (then `prepare` is never called).
    public func send(prepare: @escaping @Sendable () -> [RedisCommand]?, completion: @escaping Completion) {
        enqueue(Batch(work: .prepare(prepare), completion: completion))
    }

    /// Builds a batch with `prepare` and writes it on the caller's thread, if the client's
    /// thread sleeps with nothing queued or in flight: a coalescing caller's lone batch goes
    /// out without waiting for the thread to wake (the thread reads the reply). Otherwise
    /// nothing is built, nothing is sent and `completion` is not called: queue it with
    /// ``send(prepare:completion:)``.
    ///
    /// `prepare` runs without the client's lock held (it may take the caller's own locks and
    /// send other batches, which then follow this one). A batch it builds larger than a
    /// sender writes itself goes to the client's thread ahead of anything queued meanwhile,
    /// so the caller never waits on Redis.
    /// - Returns: whether it was taken (its completion then runs on the client's thread, or,
    ///   when `prepare` built nothing or a command it cannot send, on the caller's).
    public func sendIfIdle(prepare: @escaping @Sendable () -> [RedisCommand]?, completion: @escaping Completion) -> Bool {
        let lent = state.withLock { state -> LentConnection? in
            guard !state.stopping, state.connected, state.queue.isEmpty, state.written.isEmpty, let lent = state.idleConnection
            else { return nil }
            state.idleConnection = nil
            state.lentToSender = true
            state.threadIdle = false  // the reply, or the connection given back, wakes it
            return lent
        }
        guard let lent else { return false }
        let prepared = PreparedCommands(prepare())
        let ready = prepared.commands
        let batch = Batch(work: .commands(ready), completion: completion)
        let writesItself = !ready.isEmpty && RESPEncoding.estimatedSize(of: ready) <= Self.maxImmediateBytes
        // A failed write leaves the connection unusable: the thread reads the failure and
        // fails the batch with the others in flight.
        if writesItself { _ = lent.connection.append(ready) ?? lent.connection.flush() }
        let wakeThread = state.withLock { state -> Bool in
            state.lentToSender = false
            if writesItself {
                state.written.append((batch, ready))
            } else if !ready.isEmpty {
                state.queue.insert(batch, at: 0)  // before anything queued while it was built
            }
            // Awake and waiting for the connection: wake it. Else a batch written here
            // wakes it by its reply (what was queued meanwhile waits for that); with
            // nothing written and nothing queued it sleeps on, the connection idle again.
            if state.threadAwaitsLender { return true }
            if writesItself { return false }
            if state.queue.isEmpty {
                state.idleConnection = lent
                state.threadIdle = true
                return false
            }
            return true
        }
        if wakeThread { wake.signal() }
        switch prepared {
        case .nothing: completion(.success([]))
        case .invalid(let problem): fail(CollectionOfOne(batch), with: .invalidCommand(problem))
        case .ready: break
        }
        return true
    }

    /// Sends `commands` as one batch and returns their replies in order.
    /// - Throws: ``RedisClientError``; a cancelled task still waits for the batch, which
    ///   cannot be withdrawn once queued.
    public func send(_ commands: [RedisCommand]) async throws(RedisClientError) -> [RedisValue] {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[RedisValue], RedisClientError>, Never>) in
            send(commands) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    private func enqueue(_ batch: Batch) {
        var rejection: RedisClientError?
        var wakeThread = false
        state.withLock { state in
            if state.stopping {
                rejection = .closed
            } else if !state.connected {
                rejection = .unavailable(state.unavailableReason)
            } else if state.queue.count >= maxQueuedBatches {
                rejection = .overloaded(limit: maxQueuedBatches)
            } else {
                state.queue.append(batch)
                wakeThread = state.threadIdle
                state.threadIdle = false
            }
        }
        if let rejection {
            failedBatchCount.add(1, ordering: .relaxed)
            batch.completion(.failure(rejection))
        } else if wakeThread {
            wake.signal()
        }
    }

    /// Fails every queued batch with `error` (the caller's thread).
    func failQueued(with error: RedisClientError) {
        let batches = state.withLock { state in
            defer { state.queue = [] }
            return state.queue
        }
        fail(batches, with: error)
    }

    func fail(_ batches: some Collection<Batch>, with error: RedisClientError) {
        guard !batches.isEmpty else { return }
        failedBatchCount.add(UInt64(batches.count), ordering: .relaxed)
        for batch in batches { batch.completion(.failure(error)) }
    }

    // MARK: State for metrics

    /// Whether the client is connected (and ``onConnected`` has run): a batch sent now is
    /// queued rather than failed.
    public var isConnected: Bool { connectedFlag.load(ordering: .acquiring) }
    /// Round trips made: one write of every batch queued, then their replies.
    public var roundTrips: UInt64 { roundTripCount.load(ordering: .relaxed) }
    /// Commands written in round trips (not those of ``onConnected`` or `SELECT`).
    public var commandsSent: UInt64 { commandCount.load(ordering: .relaxed) }
    /// Batches that failed (any ``RedisClientError``), at once or in flight.
    public var failedBatches: UInt64 { failedBatchCount.load(ordering: .relaxed) }
    /// Connections made (the first and every reconnection).
    public var connections: UInt64 { connectionCount.load(ordering: .relaxed) }
}

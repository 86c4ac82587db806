// SPDX-License-Identifier: MIT
import Logging
import Synchronization

/// A pub/sub connection: subscribes to a set of channels and hands every message to a
/// handler, on its own thread and hiredis connection (separate from any ``RedisClient``: a
/// subscribed connection can send nothing else).
///
/// It reconnects by itself after a failure (100 ms doubling to 5 s, with jitter) and
/// subscribes to all its channels again; messages published while it was disconnected are
/// lost (pub/sub keeps nothing), so ``onConnected`` is the place to resync. The thread waits
/// in `poll` on the socket and a wake descriptor: ``subscribe(_:)`` and ``stop()`` take
/// effect at once, even while it connects.
///
/// Threads: every method may be called from any thread; the handler and ``onConnected`` /
/// ``onDisconnected`` run on the subscriber's thread and must not block.
public final class RedisSubscriber: Sendable {
    /// Receives one message: its channel and payload (binary-safe).
    public typealias MessageHandler = @Sendable (_ channel: [UInt8], _ payload: [UInt8]) -> Void

    struct State {
        var stopping = false
        var connected = false
        /// Every channel, in the order first asked for.
        var channels: [[UInt8]] = []
        var known: Set<[UInt8]> = []
        /// Channels added since the thread last looked (it subscribes to them when connected).
        var added: [[UInt8]] = []
        var onConnected: (@Sendable () -> Void)?
        var onDisconnected: (@Sendable (RedisClientError) -> Void)?
    }

    /// The server (its database does not matter: channels are global).
    public let endpoint: RedisEndpoint
    /// The thread's name (cut to 15 bytes) and `redis.client` in logs.
    public let name: String
    /// The longest wait for a connection to be made, in milliseconds.
    public let connectTimeoutMs: Int

    let logger: Logger
    let handler: MessageHandler
    let state: Mutex<State>
    let wake = WakeSignal()
    let thread = RedisThread()
    let connectedFlag = Atomic<Bool>(false)
    let messageCount = Atomic<UInt64>(0)
    let connectionCount = Atomic<UInt64>(0)

    /// A subscriber to `channels` on `endpoint`; nothing happens until ``start()``.
    /// - Parameters:
    ///   - channels: channel names (binary-safe; duplicates are ignored). More can be added
    ///     with ``subscribe(_:)``.
    ///   - name: the thread's name (`top -H`) and the `redis.client` log metadata.
    ///   - connectTimeoutMs: the longest wait for a connection (default 1 s).
    ///   - handler: receives each message on the subscriber's thread; must not block.
    public init(
        endpoint: RedisEndpoint, channels: [[UInt8]], name: String = "dsbridge-rsub", logger: Logger, connectTimeoutMs: Int = 1000,
        handler: @escaping MessageHandler
    ) {
        self.endpoint = endpoint
        self.name = name
        self.connectTimeoutMs = max(1, connectTimeoutMs)
        self.handler = handler
        var logger = logger
        logger[metadataKey: "redis.client"] = "\(name)"
        logger[metadataKey: "redis.endpoint"] = "\(endpoint)"
        self.logger = logger
        var initial = State()
        for channel in channels where initial.known.insert(channel).inserted {
            initial.channels.append(channel)
        }
        state = Mutex(initial)
    }

    /// Runs on the subscriber's thread once every channel is subscribed, after each
    /// (re)connection. Set it before ``start()``.
    public var onConnected: (@Sendable () -> Void)? {
        get { state.withLock { $0.onConnected } }
        set { state.withLock { $0.onConnected = newValue } }
    }

    /// Runs on the subscriber's thread when a connection that was up is lost, with the
    /// reason (not on ``stop()``). Set it before ``start()``.
    public var onDisconnected: (@Sendable (RedisClientError) -> Void)? {
        get { state.withLock { $0.onDisconnected } }
        set { state.withLock { $0.onDisconnected = newValue } }
    }

    /// Starts the subscriber's thread, which connects and subscribes; returns at once. Later
    /// calls do nothing; a stopped subscriber does not start again. The thread keeps the
    /// subscriber alive until ``stop()``.
    public func start() {
        thread.start(name: name) { [self] in run() }
    }

    /// Closes the connection and waits for the thread to end (a few milliseconds: the
    /// thread only ever waits in `poll`, which the stop wakes). No handler runs after it
    /// returns. Called from the subscriber's thread, it does not wait. Idempotent.
    public func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
        thread.join()
    }

    /// Adds `channel`: subscribed at once when connected, and after every reconnection. Any
    /// thread; a channel already there is ignored. (A message published on it before Redis
    /// has confirmed the subscription is not received.)
    public func subscribe(_ channel: [UInt8]) {
        let added = state.withLock { state in
            guard state.known.insert(channel).inserted else { return false }
            state.channels.append(channel)
            state.added.append(channel)
            return true
        }
        if added { wake.signal() }
    }

    /// Adds `channel` (its UTF-8 bytes); see ``subscribe(_:)-([UInt8])``.
    public func subscribe(_ channel: String) {
        subscribe(Array(channel.utf8))
    }

    /// Every channel, in the order first asked for.
    public var channels: [[UInt8]] { state.withLock { $0.channels } }
    /// Whether the subscriber is connected and subscribed to its channels.
    public var isConnected: Bool { connectedFlag.load(ordering: .acquiring) }
    /// Messages handed to the handler.
    public var messagesReceived: UInt64 { messageCount.load(ordering: .relaxed) }
    /// Connections made and subscribed (the first and every reconnection).
    public var connections: UInt64 { connectionCount.load(ordering: .relaxed) }
}

// SPDX-License-Identifier: MIT
import CLibWebSockets
import DSBridge
import Dispatch
import Foundation
import Logging
import Synchronization

/// Why the server could not start.
public enum ServerStartError: Error, Sendable, CustomStringConvertible {
    /// libwebsockets could not create its context (see its log lines above).
    case contextFailed
    /// The libuv event loop could not be created (out of memory or descriptors).
    case eventLoopFailed
    /// A listener could not be opened (address in use, bad address, no permission).
    case listenFailed(host: String, port: Int)
    /// The web root is not a readable folder.
    case webRootMissing(String)
    /// The service thread could not be started (`pthread_create` failed with this errno:
    /// out of memory, or the process's thread limit).
    case serviceThreadFailed(Int32)

    public var description: String {
        switch self {
        case .contextFailed:
            return "libwebsockets could not create its context (is libwebsockets-evlib-uv installed? see the lws log lines above)"
        case .eventLoopFailed: return "cannot create the libuv event loop (out of memory or file descriptors?)"
        case .listenFailed(let host, let port):
            return "cannot listen on \(host):\(port) (address in use, not an address of this machine, or no permission)"
        case .webRootMissing(let path): return "web root \(path) is not a readable folder"
        case .serviceThreadFailed(let code): return "cannot start the service thread: \(JoinableThreadError.create(code))"
        }
    }
}

/// The ports the server listens on (useful with port 0).
public struct ListeningPorts: Sendable, Equatable {
    public let port: Int
    public let adminPort: Int
}

/// Serves a ``Bridge`` over libwebsockets: the `/dsbridge` WebSocket, the sync HTTP
/// endpoints, static files, and the admin listener. One service thread owns every
/// connection; other threads reach it only through its inbox.
///
/// Run it either by hand (``start()``, later ``stop()`` and ``waitUntilStopped()``) or as a
/// swift-service-lifecycle `Service` in a `ServiceGroup` (``run()``), where a graceful
/// shutdown drains it as SIGTERM does the daemon.
public final class BridgeServer: Sendable {
    public let bridge: Bridge
    public let configuration: ServerConfiguration
    let logger: Logger
    /// Renders `/metrics` (Prometheus text); `nil` answers 404 there.
    let metricsRenderer: (@Sendable () -> [UInt8])?
    /// The cluster this node belongs to (docs/CLUSTER.md); `nil`: one node alone.
    public let cluster: (any ClusterRouter)?
    let inbox = ServiceInbox()
    /// Whether ``start()`` or ``listen()`` has been called (the server starts once).
    private let launched = Atomic<Bool>(false)
    /// The listeners are open (the ports) or could not be.
    private let startup = OneShotEvent<Result<ListeningPorts, ServerStartError>>()
    /// The service thread's work has ended (or it never started because the start failed).
    private let finished = OneShotEvent<Void>()
    /// The service thread, joined by the first wait for the end (``waitUntilStopped()``,
    /// ``stopped()``): they return once it has exited.
    private let serviceThread = Mutex<JoinableThread?>(nil)
    private let limits = Mutex<DescriptorLimit?>(nil)
    private let draining = Atomic<Bool>(false)
    /// The last liveness question posted to the service thread, and the last it answered.
    private let livenessAsked = Atomic<UInt64>(0)
    private let livenessAnswered = Atomic<UInt64>(0)

    /// - Parameters:
    ///   - metricsRenderer: renders the metrics backend's registry for `GET /metrics` on
    ///     the admin listener (gauges of the sessions are recorded just before).
    ///   - cluster: the admin API reaches other nodes' sessions through it.
    public init(
        bridge: Bridge, configuration: ServerConfiguration, logger: Logger,
        metricsRenderer: (@Sendable () -> [UInt8])? = nil, cluster: (any ClusterRouter)? = nil
    ) {
        self.bridge = bridge
        self.configuration = configuration
        self.logger = logger
        self.metricsRenderer = metricsRenderer
        self.cluster = cluster
        if metricsRenderer != nil {
            TransportMetrics.prepare()
            cluster?.serveMetrics { [weak self] in self?.metricsText() }
        }
    }

    /// What `GET /metrics` answers (`nil` without a metrics backend): the backend's registry
    /// and the memory budget's families, after the sessions' gauges are recorded, with
    /// `# HELP` lines and the lines of every family without a sample yet (``MetricFamilies``).
    /// Walks every session: call it off the network thread.
    public func metricsText() -> [UInt8]? {
        guard let render = metricsRenderer else { return nil }
        TransportMetrics.recordSessionGauges(bridge.sessions)
        return MetricFamilies.completing(render() + MemoryBudgetMetrics.render(bridge.memory), clusterMode: cluster != nil)
    }

    /// Opens both listeners and starts the service thread, blocking the calling thread
    /// until both listen. Later calls return the same ports (or throw the same error).
    /// From a task, use ``listen()``, which does not block a thread of the concurrency pool.
    /// - Returns: the ports actually bound.
    public func start() throws(ServerStartError) -> ListeningPorts {
        launchOnce()
        return try startup.wait().get()
    }

    /// Opens both listeners and starts the service thread unless that was done already,
    /// and returns the ports once both listen; the task suspends meanwhile. ``run()`` calls
    /// it; call it yourself to learn the ports (with port 0) while `run()` serves.
    /// - Returns: the ports actually bound.
    public func listen() async throws(ServerStartError) -> ListeningPorts {
        launchOnce()
        return try await startup.value.get()
    }

    /// The first call starts the service thread, which reports to ``startup`` once it
    /// listens (or could not); later calls do nothing.
    private func launchOnce() {
        guard !launched.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: configuration.webRoot, isDirectory: &isDirectory), isDirectory.boolValue
        else { return failedToStart(.webRootMissing(configuration.webRoot)) }
        LWSLog.install(logger)
        // Before the lws context exists: lws sizes its descriptor table from the soft limit.
        let limit =
            configuration.managesDescriptorLimit
            ? DescriptorLimit.apply(maxSessions: bridge.configuration.maxSessions) : DescriptorLimit.current()
        limits.withLock { $0 = limit }
        logger.notice(
            "descriptor limit \(limit.soft) (was \(limit.previousSoft), hard \(limit.hard)): room for about \(limit.sessionCapacity) page connections (sessions and HTTP requests), \(DescriptorLimit.reserve) kept for the admin listener and files"
        )
        do {
            // The thread's work waits until its handle is kept: a waiter that sees `finished`
            // (a start that fails at once) then always finds the thread to join.
            let kept = DispatchSemaphore(value: 0)
            let thread = try JoinableThread(stackSize: 4 << 20) { [self] in
                kept.wait()
                runServiceThread(descriptorLimit: limit)
            }
            serviceThread.withLock { $0 = thread }
            kept.signal()
        } catch {
            guard case .create(let code) = error else { return }
            failedToStart(.serviceThreadFailed(code))
        }
    }

    /// The server did not start: nothing listens, and there is no service thread to wait for.
    private func failedToStart(_ error: ServerStartError) {
        startup.fulfill(.failure(error))
        finished.fulfill(())
    }

    /// The descriptor limit the server runs with (after ``start()``; PROTOCOL.md 2.6).
    public var descriptorLimit: DescriptorLimit? { limits.withLock { $0 } }

    /// Whether a drain has begun (`/healthz` answers 503).
    public var isDraining: Bool { draining.load(ordering: .acquiring) }

    /// Begins the drain (PROTOCOL.md 7): no new sockets, `/healthz` 503, every socket closed
    /// with 1001 once its in-flight sync calls are answered; the service thread ends when
    /// nothing is left or after `drainMs`. Returns at once; ``waitUntilStopped()`` or
    /// ``stopped()`` wait for the end. A graceful shutdown of ``run()`` calls it.
    public func stop() {
        draining.store(true, ordering: .releasing)
        inbox.post(.stop(cut: false))
    }

    /// Ends the drain now: like ``stop()``, but what is still in flight is cut at once
    /// (sockets closed with 1001) instead of after `drainMs`. Cancelling ``run()`` calls it.
    public func stopNow() {
        draining.store(true, ordering: .releasing)
        inbox.post(.stop(cut: true))
    }

    /// For a watchdog (systemd's `WATCHDOG=1`): whether the service thread answered the
    /// previous call's question, and a new question for the next call. The service thread
    /// answers when it drains its inbox, which it does on every loop pass it makes, so a
    /// thread stuck in one callback (or in application code wrongly run there) stops
    /// answering and the watchdog stops pinging. Call it at a steady interval from one
    /// thread; the first call answers `true`.
    public func networkThreadAnswered() -> Bool {
        let asked = livenessAsked.load(ordering: .acquiring)
        let answered = livenessAnswered.load(ordering: .acquiring) == asked
        let next = asked &+ 1
        livenessAsked.store(next, ordering: .releasing)
        inbox.post(.liveness(next))
        return answered
    }

    /// The service thread answers liveness question `number` (ServiceLoop).
    func answerLiveness(_ number: UInt64) {
        livenessAnswered.store(number, ordering: .releasing)
    }

    /// Blocks the calling thread until the service thread has ended; returns at once when
    /// the server was never started. From a task, use ``stopped()``.
    public func waitUntilStopped() {
        guard launched.load(ordering: .acquiring) else { return }
        finished.wait()
        joinServiceThread()
    }

    /// Suspends until the service thread has exited; returns at once when the server was
    /// never started. No thread of the concurrency pool is held while it runs (only for its
    /// exit once its work has ended, microseconds).
    public func stopped() async {
        guard launched.load(ordering: .acquiring) else { return }
        await finished.value
        // The thread's work is done: what is left of it is its exit, microseconds.
        joinServiceThread()
    }

    /// Waits until the service thread has exited, after its work ended (``finished``): what
    /// it ran at exit (OpenSSL's per-thread cleanup) is over before the caller goes on, and
    /// perhaps on to `exit`.
    private func joinServiceThread() {
        serviceThread.withLock { $0 }?.join()
    }

    private func runServiceThread(descriptorLimit: DescriptorLimit) {
        // The kernel's name of the thread (`top -H`, /proc/PID/task/TID/comm); Foundation's
        // `Thread.name` set before start does not reach it on Linux.
        CLibWebSockets_name_thread("lws-service")
        let loop = ServiceLoop(server: self, descriptorLimit: descriptorLimit)
        switch loop.open() {
        case .failure(let error):
            failedToStart(error)
            return
        case .success(let ports):
            startup.fulfill(.success(ports))
        }
        loop.run()
        finished.fulfill(())
    }
}

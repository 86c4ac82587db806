// SPDX-License-Identifier: MIT
import CLibWebSockets
import DSBridge
import Dispatch
import Foundation
import Logging

/// Everything the service thread owns: the lws context, its vhosts and the state of every
/// connection. Used only on the service thread (lws callbacks reach it through the
/// context's user pointer), so it needs no locks.
final class ServiceLoop {
    let server: BridgeServer
    var bridge: Bridge { server.bridge }
    var config: ServerConfiguration { server.configuration }
    var logger: Logger { server.logger }
    let staticFiles: StaticFiles
    let clientAddresses: ClientAddress
    /// Known once the page listener's port is.
    var origins = OriginPolicy(host: "127.0.0.1", port: 0, allowed: [])

    var context: OpaquePointer?
    var mainVhost: OpaquePointer?
    var sockets: [UInt64: WebSocketState] = [:]
    /// Sockets that received frames this loop pass (ServiceLoop+WebSocket).
    var flushSoon: [WebSocketState] = []
    var exchanges: [UInt64: HTTPExchange] = [:]
    /// The HTTP connections dsbridged serves itself: the page port's (under TLS, fed by
    /// libwebsockets) and the admin listener's.
    var plainConnections: [UInt64: PlainHTTPConnection] = [:]
    /// Under `--tls-cert`: lws terminates TLS on each page connection, in-process
    /// (``TLSLink``, ServiceLoop+TLS).
    var terminatesTLS = false
    /// For measurement only (docs/PERFORMANCE.md, "plain sockets as libwebsockets
    /// connections"): `DSBRIDGED_MEASURE_LWS_PLAIN=1` makes lws adopt plain page sockets too,
    /// as raw connections fed to the same ``PlainHTTPConnection`` as TLS ones.
    let lwsPlainSockets = ProcessInfo.processInfo.environment["DSBRIDGED_MEASURE_LWS_PLAIN"] == "1"
    /// TLS connections with plaintext waiting that they want read this loop pass.
    var tlsReadsDue: [PlainHTTPConnection] = []
    /// Where plain-HTTP requests are read into (service thread only; larger than the
    /// largest request head allowed).
    let plainScratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 17, alignment: 16)
    /// Where WebSocket input is read into (service thread only; ServiceLoop+WebSocket).
    let webSocketScratch = UnsafeMutableRawBufferPointer.allocate(byteCount: ServiceLoop.webSocketReadBytes, alignment: 16)
    /// Where a WebSocket frame is put together before its `send` (ServiceLoop+WebSocket).
    var frameScratch: [UInt8] = []
    /// WebSocket payload bytes read and written this loop pass (counted once per pass).
    var bytesInThisPass = 0
    var bytesOutThisPass = 0
    /// Sessions whose socket a drain closed: admin calls into them answer 503 at once.
    var drainClosedSessions = Set<String>()
    var nextID: UInt64 = 1
    var stopping = false
    /// When a drain cuts what is left (loop clock, ms).
    var stopDeadline: UInt64?
    var drainCut = false
    var done = false
    /// The libuv loop lws runs on (nil before open and after close).
    var eventLoop: EventLoop?
    /// The page port's listening socket (ours; lws gets each accepted socket).
    var pageListener: ListeningSocket?
    /// When the page listener pauses for lack of descriptors (ServiceLoop+Accept).
    var acceptGate: AcceptGate
    /// The admin listener's socket (ours too: served like the page port's plain HTTP).
    var adminListener: ListeningSocket?
    /// When the admin listener pauses: only while `accept` fails (it never pauses for the
    /// reserve, PROTOCOL.md 2.6).
    var adminAcceptGate = AcceptGate(threshold: .max)
    /// Sockets', exchanges' and the drain's deadlines (ServiceLoop+Timers).
    var deadlines = DeadlineQueue<TimerSubject>()
    /// Where lws keeps its context pointer; it sets it to nil once destroyed.
    let contextHolder: UnsafeMutablePointer<OpaquePointer?> = {
        let p = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: 1)
        p.initialize(to: nil)
        return p
    }()
    /// Most sockets and exchanges open at once since the heap was last trimmed.
    var connectionsPeakSinceTrim = 0

    // C data lws keeps pointers to for the context's life.
    private var allocations: [UnsafeMutableRawPointer] = []
    private var mainProtocols: UnsafeMutablePointer<lws_protocols>?
    private var retryPolicy: UnsafeMutablePointer<lws_retry_bo_t>?

    /// The descriptor limit the daemon runs with.
    let descriptorLimit: DescriptorLimit

    init(server: BridgeServer, descriptorLimit: DescriptorLimit) {
        self.server = server
        self.descriptorLimit = descriptorLimit
        self.staticFiles = StaticFiles(root: server.configuration.webRoot)
        self.clientAddresses = ClientAddress(trustedProxies: Set(server.configuration.trustedProxies))
        self.acceptGate = AcceptGate(threshold: descriptorLimit.acceptThreshold)
    }

    static func from(_ wsi: OpaquePointer?) -> ServiceLoop? {
        guard let wsi, let ctx = lws_get_context(wsi), let user = lws_context_user(ctx) else { return nil }
        return Unmanaged<ServiceLoop>.fromOpaque(user).takeUnretainedValue()
    }

    func makeID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }

    private func cString(_ s: String) -> UnsafePointer<CChar> {
        let p = strdup(s)!
        allocations.append(UnsafeMutableRawPointer(p))
        return UnsafePointer(p)
    }

    /// Creates the event loop, the context on it and both listeners.
    func open() -> Result<ListeningPorts, ServerStartError> {
        let events: EventLoop
        do {
            events = try EventLoop()
        } catch {
            return .failure(.eventLoopFailed)
        }
        eventLoop = events
        var info = lws_context_creation_info()
        // lws on libuv (epoll): a pass costs what is active, not what is open. The loop is
        // ours ("foreign"), so lws installs no signal handlers and we run work of our own
        // on it (ServiceLoop+Timers).
        info.options =
            UInt64(LWS_SERVER_OPTION_EXPLICIT_VHOSTS) | UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
            | UInt64(LWS_SERVER_OPTION_DISABLE_IPV6) | UInt64(LWS_SERVER_OPTION_LIBUV)
        if config.tlsCertificatePath != nil { info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) }
        let foreignLoops = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 1)
        foreignLoops.initialize(to: UnsafeMutableRawPointer(events.loop))
        defer { foreignLoops.deallocate() }
        info.foreign_loops = foreignLoops
        info.pcontext = contextHolder
        info.gid = -1
        info.uid = -1
        info.user = Unmanaged.passUnretained(self).toOpaque()
        // lws' own keepalive (its "validity" timers) is off: its timer list is a sorted
        // linked list, O(n) per insert. Pings, heartbeats and hang-ups are ours, one heap
        // entry per socket (SocketLiveness).
        let retry = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)
        retry.initialize(to: lws_retry_bo_t())
        retry.pointee.secs_since_valid_ping = 0
        retry.pointee.secs_since_valid_hangup = 0
        retryPolicy = retry
        info.retry_and_idle_policy = UnsafePointer(retry)
        info.fd_limit_per_thread = 0
        info.max_http_header_data = UInt16(clamping: config.maxHeaderBytes)
        guard let ctx = lws_create_context(&info) else {
            events.close()
            eventLoop = nil
            return .failure(.contextFailed)
        }
        context = ctx

        // The page vhost's one protocol: raw TLS connections under --tls-cert (their lws user
        // data: a pointer to the connection they feed). lws serves no HTTP.
        mainProtocols = makeProtocols([
            (Self.tlsProtocol, pageTLSCallback, MemoryLayout<UnsafeMutableRawPointer?>.size, 0)
        ])

        // The page vhost does not listen: dsbridged owns that socket (ListeningSocket) so it can
        // stop accepting when descriptors run short, and hands each connection to lws.
        let tls = config.tlsCertificatePath.flatMap { cert in config.tlsKeyPath.map { (cert, $0) } }
        guard
            let main = makeVhost(
                name: "dsbridge", host: config.host, port: Int(CONTEXT_PORT_NO_LISTEN_SERVER),
                protocols: mainProtocols!, tls: tls)
        else {
            closeContextAndLoop()
            return .failure(.contextFailed)
        }
        mainVhost = main
        let listener: ListeningSocket
        do {
            listener = try ListeningSocket(host: config.host, port: config.port, loop: events.loop)
        } catch {
            closeContextAndLoop()
            return .failure(.listenFailed(host: config.host, port: config.port))
        }
        pageListener = listener
        // HTTP is served here (ServiceLoop+PlainHTTP), under TLS fed by lws in-process
        // (ServiceLoop+TLS), WebSockets too (ServiceLoop+WebSocket).
        terminatesTLS = tls != nil
        // The admin listener: the same HTTP/1.1 server, its own routes (ServiceLoop+Admin).
        let admin: ListeningSocket
        do {
            admin = try ListeningSocket(host: config.adminHost, port: config.adminPort, loop: events.loop)
        } catch {
            closeContextAndLoop()
            return .failure(.listenFailed(host: config.adminHost, port: config.adminPort))
        }
        adminListener = admin
        origins = OriginPolicy(
            host: config.host, port: listener.port, allowed: config.allowedOrigins,
            tls: config.tlsCertificatePath != nil)
        events.onPrepare = { [unowned self] in beforeWait() }
        events.onWake = { [unowned self] in drainInbox() }
        events.onTimer = { [unowned self] in deadlinesDue() }
        server.inbox.open(events.wakeHandle)
        bridge.serviceThreadStarted()
        listener.onReadable = { [unowned self] in acceptPending() }
        listener.resume()
        admin.onReadable = { [unowned self] in acceptAdminPending() }
        admin.resume()
        return .success(ListeningPorts(port: listener.port, adminPort: admin.port))
    }

    private typealias Callback = @convention(c) (OpaquePointer?, lws_callback_reasons, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int) -> Int32

    private func makeProtocols(_ list: [(String, Callback, Int, Int)]) -> UnsafeMutablePointer<lws_protocols> {
        let p = UnsafeMutablePointer<lws_protocols>.allocate(capacity: list.count + 1)
        for (i, entry) in list.enumerated() {
            var proto = lws_protocols()
            proto.name = cString(entry.0)
            proto.callback = entry.1
            proto.per_session_data_size = entry.2
            proto.rx_buffer_size = entry.3
            // Without it lws 4.1 hands the kernel at most rx_buffer_size (or 4 KiB) per
            // write and copies the rest of a frame into a buffer drained one WRITEABLE
            // pass at a time; the kernel takes what fits, lws buffers only the remainder.
            proto.tx_packet_size = Self.largestWriteBytes
            (p + i).initialize(to: proto)
        }
        (p + list.count).initialize(to: lws_protocols())
        return p
    }

    private func makeVhost(
        name: String, host: String, port: Int, protocols: UnsafeMutablePointer<lws_protocols>, tls: (String, String)? = nil
    ) -> OpaquePointer? {
        var info = lws_context_creation_info()
        if let (cert, key) = tls {
            info.ssl_cert_filepath = cString(cert)
            info.ssl_private_key_filepath = cString(key)
            // HTTP/1.1 only: lws 4.1 offers "h2,http/1.1" by ALPN by default, browsers take
            // h2, and our answers are HTTP/1 bytes (lws_write_http / raw writes), which an h2
            // peer reads as garbage. Offering only http/1.1 keeps every browser on HTTP/1.1.
            info.alpn = cString("http/1.1")
        }
        info.vhost_name = cString(name)
        info.port = Int32(port)
        info.iface = cString(host)
        info.protocols = UnsafePointer(protocols)
        info.options = UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8) | UInt64(LWS_SERVER_OPTION_DISABLE_IPV6)
        if tls != nil { info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) }
        info.retry_and_idle_policy = retryPolicy.map { UnsafePointer($0) }
        info.keepalive_timeout = 60
        info.timeout_secs = 30
        guard let ctx = context else { return nil }
        return lws_create_vhost(ctx, &info)
    }

    /// Runs the loop until a stop completes, then destroys the context and the loop.
    func run() {
        guard let events = eventLoop else { return }
        if !done { events.run() }
        server.inbox.close()
        closeContextAndLoop()
        for a in allocations { free(a) }
        allocations.removeAll()
        mainProtocols?.deallocate()
        retryPolicy?.deallocate()
        contextHolder.deallocate()
        plainScratch.deallocate()
        webSocketScratch.deallocate()
    }

    /// Work done once per loop pass, before it waits: what the service thread posted to
    /// itself (answers of calls it ran inline), again if draining posted more (nobody else
    /// wakes the loop for it, and other threads skip the wake while it is queued); then
    /// the bridge's deferred work; then the timer is moved to the earliest deadline.
    private func beforeWait() {
        // TLS plaintext a connection wants again (lws does not report it twice).
        readWaitingTLSInput()
        // First what inline calls answered (their wakes then find nothing left to write).
        flushInlineAnswers()
        repeat {
            while server.inbox.takeLocalPosts() {
                drainInbox()
                flushInlineAnswers()
            }
            bridge.runDeferredWork()
            // The deferred work may post for this thread: a journal round that fails at once
            // (Redis down) opens its sessions' gates and wakes their sockets from here. Left
            // undrained, that post would wait for the next timer (seconds), and posts from
            // other threads behind it would not wake the loop either (ServiceInbox.post).
        } while server.inbox.hasLocalPosts
        eventLoop?.setTimer(deadline: deadlines.earliest)
    }

    /// Destroys the lws context (with a foreign loop its teardown is asynchronous: the
    /// loop runs until lws' handles have closed) and closes the loop.
    private func closeContextAndLoop() {
        closePlainConnections()
        closeWebSockets()
        pageListener?.close()
        pageListener = nil
        adminListener?.close()
        adminListener = nil
        if let ctx = contextHolder.pointee { lws_context_destroy(ctx) }
        eventLoop?.close { [contextHolder] in
            // lws finishes in a second destroy once its handles are down.
            if let ctx = contextHolder.pointee { lws_context_destroy(ctx) }
        }
        context = nil
        eventLoop = nil
    }

    /// Handles everything other threads posted (the loop's async handle fired).
    func drainInbox() {
        let (posted, wokenAt) = server.inbox.drain()
        if let wokenAt { LoopLag.record(since: wokenAt) }
        for work in posted {
            switch work {
            case .connection(let id):
                guard let socket = sockets[id] else { continue }
                socket.waker.taken()
                if stopping, socket.machine.takesFrames, socket.connection.isSettled { closeDraining(socket) }
                applyReadPause(socket)
                // What a worker queued goes out before this pass waits, like the answers of
                // frames run here (``flushInlineAnswers()``).
                if socket.machine.hasWriteDue || stopping
                    || socket.connection.hasPendingOutput
                {
                    flushBeforeWait(socket)
                }
            case .httpAnswer(let id, let answer):
                guard let exchange = exchanges[id], exchange.answer == nil, exchange.awaitingAnswer else { continue }
                exchange.awaitingAnswer = false
                respond(exchange, answer)
            case .stop(let cut):
                beginStop()
                if cut { cutDrain() }
            case .liveness(let number):
                server.answerLiveness(number)
            }
        }
    }

    /// Most bytes lws offers the kernel in one write (it allocates nothing for it).
    static let largestWriteBytes = 1 << 20

    /// After many connections went away, hands the allocator's free memory back to the
    /// system (glibc keeps it otherwise, and RSS would only ever grow after bursts).
    func trimHeapAfterBursts() {
        let open = sockets.count + exchanges.count + plainConnections.count
        connectionsPeakSinceTrim = max(connectionsPeakSinceTrim, open)
        guard connectionsPeakSinceTrim - open >= 1_000 else { return }
        connectionsPeakSinceTrim = open
        _ = CLibWebSockets_trim_heap()
    }

    /// SIGTERM (a graceful shutdown, ``BridgeServer/stop()``): stop accepting sockets (HTTP is still served), close each socket with 1001
    /// once its in-flight sync calls are answered and written, and end when nothing is left
    /// or `drainMs` has passed (then whatever is left is cut).
    private func beginStop() {
        guard !stopping else { return }
        stopping = true
        let now = loopNow
        stopDeadline = now + UInt64(config.drainMs)
        logger.notice("draining: \(sockets.count) sockets, up to \(config.drainMs) ms")
        // Once: settled sockets close now; the others when they settle (drainInbox and
        // writeable check), or at the deadline.
        for socket in sockets.values where socket.connection.isSettled { closeDraining(socket) }
        deadlines.schedule(.drain, at: now + Self.drainCheckMs)
        drainStep(now: now)
    }

    /// Moves the drain's deadline to now (a cancelled ``BridgeServer/run()``): every socket
    /// is closed with 1001 at once and the loop ends within 500 ms.
    private func cutDrain() {
        let now = loopNow
        guard !done, let deadline = stopDeadline, deadline > now else { return }
        stopDeadline = now
        drainStep(now: now)
    }

    /// How often a drain checks whether it is done.
    static let drainCheckMs: UInt64 = 50

    /// Closes `socket` with 1001 (drain).
    func closeDraining(_ socket: WebSocketState) {
        guard socket.machine.takesFrames else { return }
        if let id = socket.connection.session?.id { drainClosedSessions.insert(id) }
        // In a cluster the admin calls waiting on the session keep waiting: their invokes go
        // with the session to the node its page resumes on, whose answers come back here
        // (the drain waits for them, up to its deadline). Alone, no node would answer.
        if server.cluster == nil { answerAdminCallsDraining(socket.connection.session?.id) }
        closeSoon(socket, 1001, "server draining")
    }

    /// During a drain, every ``drainCheckMs``: at the deadline everything left is cut; the
    /// loop ends when no socket and no HTTP answer is left (or 500 ms after the cut).
    func drainStep(now: UInt64) {
        guard let deadline = stopDeadline else { return }
        if now >= deadline && !drainCut {
            drainCut = true
            for socket in sockets.values { closeDraining(socket) }
        }
        let httpBusy = exchanges.values.contains { $0.answer != nil || $0.awaitingAnswer }
        // In a cluster, calls still running here finish first: their answers reach the pages
        // on the nodes they moved to (docs/CLUSTER.md, drain).
        let clusterBusy = server.cluster?.isBusy ?? false
        if (sockets.isEmpty && !httpBusy && (!clusterBusy || drainCut)) || now >= deadline + 500 {
            finish()
            return
        }
        deadlines.schedule(.drain, at: now + Self.drainCheckMs)
    }

    private func finish() {
        done = true
        eventLoop?.stop()
    }
}

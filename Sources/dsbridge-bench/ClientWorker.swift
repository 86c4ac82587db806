// SPDX-License-Identifier: MIT
import CLibWebSockets
import Glibc
import HeapModule

/// One client thread: a libwebsockets client context and the links it owns. Every member
/// is used on that thread only (lws allows nothing else); the runner talks to it through
/// ``RunControl`` (phase, wake-ups, live figures, final stats).
final class ClientWorker {
    let index: Int
    let options: BenchOptions
    let control: RunControl
    /// Sessions (or concurrent cycles) this worker holds.
    let share: Int

    private(set) var context: OpaquePointer?
    private var links: [Link?] = [nil]
    private var freeIDs: [Int] = []

    var stats = WorkerStats()
    private(set) var phase = RunPhase.opening
    /// The phase is `measure`: operations and samples count.
    private(set) var counting = false
    /// When the measurement started (monotonic ns).
    private(set) var measureStart = UInt64.max

    /// Connection attempts in progress and links established.
    private(set) var pendingOpens = 0
    private(set) var openLinks = 0
    var readyCount = 0
    /// Operations and errors over the whole run, for the progress line.
    var operations = 0
    var errorCount = 0
    var checked = 0
    /// Initial links not opened yet.
    private var toOpen: Int
    /// `resume`: sessions waiting to reconnect.
    var resumeQueue: [ResumeTicket] = []

    /// The payload as pre-encoded JSON (a string of `payloadBytes` characters), or the raw
    /// echo frame.
    let payload: [UInt8]
    /// `"method":"<--method>"` with its JSON-escaped name, for syn and http calls.
    let methodMember: [UInt8]
    /// `,"method":"test.pushInvokes"` (or the `--trigger-method`).
    let triggerMember: [UInt8]
    /// Scratch buffer for composing frames, with `pre` bytes of headroom for lws.
    private let scratch: UnsafeMutableRawPointer
    let scratchCapacity: Int
    /// Room one composed message may take at most.
    let messageBound: Int
    /// Messages per batch frame at most with `--coalesce`.
    static let coalescedMessages = 64
    let pre = Int(CLibWebSockets_pre())

    /// The libuv loop the context runs on (`--client-loop uv`).
    private var eventLoop: ClientEventLoop?
    /// Where lws keeps its context pointer (it sets it to nil once destroyed on a foreign loop).
    private let contextHolder: UnsafeMutablePointer<OpaquePointer?> = {
        let p = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: 1)
        p.initialize(to: nil)
        return p
    }()
    /// Kept for the context's life (lws holds a pointer to it).
    private let retryPolicy = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)
    /// `paced`: when each ready session makes its next call.
    private var schedule: PacedSchedule
    /// Acks due (libuv loop only), earliest first.
    private var ackTimers = Heap<TimedLink>()
    private var nextTick: UInt64 = 0
    private var nextSecond: UInt64 = 0
    private var stopDeadline = UInt64.max
    private var done = false
    private var sourceCursor = 0

    // C data lws keeps pointers to for the context's life.
    private var protocols: UnsafeMutablePointer<lws_protocols>?
    private var cStrings: [UnsafeMutablePointer<CChar>] = []
    private var hostC: UnsafePointer<CChar>?
    private var hostHeaderC: UnsafePointer<CChar>?
    private var wsPathC: UnsafePointer<CChar>?
    private var rootPathC: UnsafePointer<CChar>?
    private var wsProtocolC: UnsafePointer<CChar>?
    private var rawProtocolC: UnsafePointer<CChar>?
    private var rawMethodC: UnsafePointer<CChar>?
    private var subprotocolC: [String: UnsafePointer<CChar>] = [:]
    private var sourceC: [UnsafePointer<CChar>] = []

    init(index: Int, options: BenchOptions, control: RunControl, share: Int) {
        self.index = index
        self.options = options
        self.control = control
        self.share = share
        self.toOpen = options.scenario == .connect ? 0 : share
        if options.scenario == .echo || (options.rawEcho && options.scenario != .http) {
            payload = Array(repeating: UInt8(ascii: "x"), count: max(1, options.payloadBytes))
        } else {
            payload = [UInt8(ascii: "\"")] + Array(repeating: UInt8(ascii: "x"), count: options.payloadBytes) + [UInt8(ascii: "\"")]
        }
        methodMember = Array(#","method":"#.utf8) + FrameComposer.jsonQuoted(options.method)
        triggerMember = Array(#","method":"#.utf8) + FrameComposer.jsonQuoted(options.triggerMethod)
        messageBound = max(payload.count * 2 + methodMember.count + 1024, 4096)
        scratchCapacity = messageBound * (options.coalesce ? Self.coalescedMessages : 1)
        scratch = UnsafeMutableRawPointer.allocate(byteCount: scratchCapacity + Int(CLibWebSockets_pre()), alignment: 16)
        schedule = PacedSchedule(periodMs: UInt64((1000 / options.rate).rounded()))
    }

    deinit {
        scratch.deallocate()
        contextHolder.deallocate()
        retryPolicy.deallocate()
        for p in cStrings { free(p) }
        protocols?.deallocate()
    }

    private func cString(_ s: String) -> UnsafePointer<CChar>? {
        guard let p = strdup(s) else { return nil }
        cStrings.append(p)
        return UnsafePointer(p)
    }

    // MARK: life

    /// Creates the context, runs the service loop until the run stops, publishes the stats.
    func run() {
        defer { control.publish(index, stats) }
        guard makeContext(), let ctx = context else {
            stats.error("client.contextFailed")
            return
        }
        control.register(index, ClientContextRef(raw: ctx))
        let now = monotonicNanos()
        nextTick = now
        nextSecond = now + 1_000_000_000
        housekeeping()
        if let events = eventLoop {
            events.onTimer = { [unowned self] in timersDue() }
            while !done {
                events.runOnce()
                housekeeping()
            }
        } else {
            while !done {
                if lws_service(ctx, 0) < 0 { break }
                housekeeping()
            }
        }
        control.unregister(index)
        lws_context_destroy(ctx)
        // On a foreign loop lws finishes in a second destroy once its handles are closed.
        eventLoop?.close { [contextHolder] in
            if let ctx = contextHolder.pointee { lws_context_destroy(ctx) }
        }
        eventLoop = nil
        context = nil
        publishLive()
    }

    private func makeContext() -> Bool {
        hostC = cString(options.host)
        hostHeaderC = cString("\(options.host):\(options.port)")
        wsPathC = cString("/dsbridge")
        rootPathC = cString("/")
        wsProtocolC = cString("bench-ws")
        rawProtocolC = cString("bench-raw")
        rawMethodC = cString("RAW")
        for name in ["dsbridge.v1", "lws-echo"] { subprotocolC[name] = cString(name) }
        sourceC = options.sources.compactMap { cString($0) }

        let p = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 3)
        var ws = lws_protocols()
        ws.name = wsProtocolC
        ws.callback = benchWebSocketCallback
        ws.rx_buffer_size = 16_384
        var raw = lws_protocols()
        raw.name = rawProtocolC
        raw.callback = benchRawCallback
        raw.rx_buffer_size = 16_384
        p.initialize(to: ws)
        (p + 1).initialize(to: raw)
        (p + 2).initialize(to: lws_protocols())
        protocols = p

        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = UnsafePointer(p)
        info.gid = -1
        info.uid = -1
        info.user = Unmanaged.passUnretained(self).toOpaque()
        // No fd_limit_per_thread: with it set, lws 4.1 finds a socket's wsi by a linear
        // search of its table (wsi_from_fd) on every event, O(sockets); without it the
        // table is indexed by fd and sized by `ulimit -n`.
        info.timeout_secs = 20
        // lws' validity timers (keepalive pings) off: 4.1 keeps them in a sorted linked
        // list and re-inserts a socket's entry on every message it receives, O(sockets)
        // each time, which dominates the client's CPU with thousands of sockets.
        retryPolicy.initialize(to: lws_retry_bo_t())
        info.retry_and_idle_policy = UnsafePointer(retryPolicy)
        guard options.clientLoop == .uv else {
            context = lws_create_context(&info)
            return context != nil
        }
        // libuv as a foreign loop: lws installs no signal handlers, and the worker's timer
        // runs on the same loop.
        guard let events = ClientEventLoop() else { return false }
        eventLoop = events
        info.options |= UInt64(LWS_SERVER_OPTION_LIBUV)
        var foreign: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(events.loop)
        info.pcontext = contextHolder
        context = withUnsafeMutablePointer(to: &foreign) { slot in
            info.foreign_loops = slot
            return lws_create_context(&info)
        }
        if context == nil {
            events.close {}
            eventLoop = nil
        }
        return context != nil
    }

    // MARK: paced calls

    /// Whether acks are timed per session on the worker's timer (libuv loop) rather than
    /// swept once a second (which sends every session's ack in the same instant).
    var schedulesAcks: Bool { eventLoop != nil }

    /// Fires `link`'s ack timer `afterMs` from now.
    func scheduleAck(_ link: PageClient, afterMs: UInt64) {
        guard let events = eventLoop else { return }
        ackTimers.insert(TimedLink(due: events.now + afterMs, link: link.id))
        armTimer()
    }

    private func armTimer() {
        guard let events = eventLoop else { return }
        let next = [schedule.earliest, ackTimers.min?.due].compactMap { $0 }.min()
        events.setTimer(at: next)
    }

    /// `paced`: `link` (welcomed) starts calling at the configured rate.
    func startPacing(_ link: Link) {
        guard let events = eventLoop else { return }
        schedule.start(link.id, now: events.now)
        armTimer()
    }

    /// The timer fired: every session whose call is due makes it; due acks go out.
    private func timersDue() {
        guard let events = eventLoop else { return }
        let now = monotonicNanos()
        let due = schedule.popDue(now: events.now) { id in link(id)?.isPacing == true }
        for id in due { link(id)?.pacedCallDue(now: now) }
        while let head = ackTimers.min, head.due <= events.now {
            _ = ackTimers.removeMin()
            (link(head.link) as? PageClient)?.ackTimerFired()
        }
        armTimer()
    }

    // MARK: service-loop housekeeping

    /// After every `lws_service` return: follow the phase, open connections, tick.
    private func housekeeping() {
        let p = control.phase
        if p != phase { enter(p) }
        let now = monotonicNanos()
        openMore()
        if now >= nextTick {
            nextTick = now + 200_000_000
            publishLive()
            if now >= nextSecond {
                nextSecond = now + 1_000_000_000
                for case let link? in links { link.tick(now: now) }
            }
        }
        if phase == .stop, pendingOpens + openLinks == 0 || now >= stopDeadline { done = true }
    }

    private func enter(_ p: RunPhase) {
        phase = p
        if p == .measure { measureStart = control.measureStart.load(ordering: .acquiring) }
        counting = p == .measure
        if p == .stop {
            // Ending sessions takes the server a while when there are thousands (poll() is
            // O(connections) per wake-up): 3 s plus 1 s per 1,000.
            stopDeadline = monotonicNanos() + 3_000_000_000 + UInt64(share) * 1_000_000
        }
        for case let link? in links { link.phaseChanged(p) }
    }

    private func publishLive() {
        let f = control.figures[index]
        f.operations.store(operations, ordering: .relaxed)
        f.errors.store(errorCount, ordering: .relaxed)
        f.ready.store(readyCount, ordering: .relaxed)
        f.checked.store(checked, ordering: .relaxed)
    }

    /// Opens connections up to the plan, at most `connectConcurrency` handshakes at once.
    private func openMore() {
        guard phase < .stop else { return }
        while pendingOpens < options.connectConcurrency {
            if !resumeQueue.isEmpty {
                open(PageClient(worker: self, resuming: resumeQueue.removeLast()))
            } else if toOpen > 0 {
                toOpen -= 1
                open(makeLink())
            } else if options.scenario == .connect, pendingOpens + openLinks < share {
                open(makeLink())
            } else {
                return
            }
        }
    }

    private func makeLink() -> Link {
        switch options.scenario {
        case .echo: return EchoClient(worker: self)
        case .idle where options.rawEcho, .paced where options.rawEcho: return EchoClient(worker: self)
        case .http: return HTTPClient(worker: self)
        default: return PageClient(worker: self, resuming: nil)
        }
    }

    // MARK: links

    /// Starts connecting `link`.
    func open(_ link: Link) {
        let id: Int
        if let free = freeIDs.popLast() {
            id = free
            links[id] = link
        } else {
            id = links.count
            links.append(link)
        }
        link.id = id
        link.openedAt = monotonicNanos()
        pendingOpens += 1
        var info = lws_client_connect_info()
        info.context = context
        info.address = hostC
        info.port = Int32(options.port)
        info.host = hostHeaderC
        info.ietf_version_or_minus_one = -1
        info.opaque_user_data = UnsafeMutableRawPointer(bitPattern: id)
        if !sourceC.isEmpty {
            info.iface = sourceC[sourceCursor % sourceC.count]
            sourceCursor &+= 1
        }
        if let sub = link.subprotocol {
            info.path = wsPathC
            info.protocol = subprotocolC[sub.description]
            info.local_protocol_name = wsProtocolC
        } else {
            info.path = rootPathC
            info.method = rawMethodC
            info.protocol = rawProtocolC
            info.local_protocol_name = rawProtocolC
        }
        var created: OpaquePointer?
        let wsi = withUnsafeMutablePointer(to: &created) { slot -> OpaquePointer? in
            info.pwsi = slot
            return lws_client_connect_via_info(&info)
        }
        if let wsi {
            link.wsi = wsi
        } else if links[id] === link {
            end(link, error: "connect refused by lws")
        }
    }

    /// The link with `id`, if it is still live.
    func link(_ id: Int) -> Link? {
        guard id > 0, id < links.count else { return nil }
        return links[id]
    }

    /// The connection opened (lws ESTABLISHED / RAW_CONNECTED).
    func established(_ link: Link) {
        guard !link.established else { return }
        link.established = true
        pendingOpens -= 1
        openLinks += 1
        link.connected()
    }

    /// The connection is gone; `error` when it failed before or while opening.
    func end(_ link: Link, error: String?) {
        guard link.id > 0, link.id < links.count, links[link.id] === link else { return }
        links[link.id] = nil
        freeIDs.append(link.id)
        if let wsi = link.wsi { lws_set_opaque_user_data(wsi, nil) }
        if link.established { openLinks -= 1 } else { pendingOpens -= 1 }
        if link.ready {
            readyCount -= 1
        }
        if let error {
            recordError("connect: " + error)
        } else if let code = link.peerCloseCode {
            stats.closed(code)
            if code != 1000 { errorCount += 1 }
        } else if link.closeRequested == nil, link.subprotocol != nil {
            stats.closed(1006)
            errorCount += 1
        }
        link.ended(error: error)
    }

    // MARK: recording

    func recordError(_ kind: String) {
        stats.error(kind)
        errorCount += 1
    }

    /// One headline operation done; a latency sample when it started while measuring.
    func recordOperation(sentAt: UInt64?, now: UInt64) {
        operations += 1
        guard counting else { return }
        stats.completed += 1
        if let sentAt, sentAt >= measureStart { stats.sample(now &- sentAt) }
    }

    /// A composer over the scratch buffer (after the lws headroom).
    /// A composer over the scratch buffer; `offset` bytes stay free in front (a batch's `[`).
    func composer(offset: Int = 0) -> FrameComposer {
        FrameComposer(base: scratch + pre + offset, capacity: scratchCapacity - offset)
    }

    /// Puts `byte` in front of what a composer made with `offset` 1 holds.
    func prefix(_ byte: UInt8) {
        scratch.storeBytes(of: byte, toByteOffset: pre, as: UInt8.self)
    }

    /// Writes what `composer` holds as one frame (`LWS_WRITE_TEXT`) or raw bytes (`LWS_WRITE_RAW`, which is `LWS_WRITE_HTTP`).
    /// `offset` bytes before the composer's start (its `offset`) go out too.
    func write(_ wsi: OpaquePointer, _ composer: FrameComposer, raw: Bool = false, offset: Int = 0) -> Bool {
        let n = composer.count + offset
        let written = lws_write(wsi, scratch.assumingMemoryBound(to: UInt8.self) + pre, n, raw ? LWS_WRITE_HTTP : LWS_WRITE_TEXT)
        return written >= n
    }

    /// Writes what a composer made with `offset` 1 holds, without the free byte in front.
    func writeAlone(_ wsi: OpaquePointer, _ composer: FrameComposer) -> Bool {
        let n = composer.count
        let written = lws_write(wsi, scratch.assumingMemoryBound(to: UInt8.self) + pre + 1, n, LWS_WRITE_TEXT)
        return written >= n
    }

    /// The next stage the link should keep going in: load runs in warm-up and measure.
    var loadRuns: Bool { phase == .warmup || phase == .measure }
}

/// A session to resume: its token and the highest `seq` the bench processed.
struct ResumeTicket {
    var token: [UInt8]
    var ack: Int64
    var lastCallID: Int64
}

/// A link's one-shot timer on the worker's clock (ms).
struct TimedLink: Comparable {
    var due: UInt64
    var link: Int
    static func < (a: TimedLink, b: TimedLink) -> Bool { a.due < b.due || (a.due == b.due && a.link < b.link) }
}

// SPDX-License-Identifier: MIT

/// What a run measures (one per invocation of the bench).
enum Scenario: String, CaseIterable, Sendable, Codable {
    /// `echo.syn` round trips over the socket.
    case syn
    /// `test.progress` calls: one `ret` and `progressCount + 1` `cb` messages each.
    case async
    /// Native-initiated invokes (made by `test.pushInvokes`) answered with `_dsb.returnValue`.
    case invoke
    /// `POST /dsbridge/call` on keep-alive connections (PROTOCOL.md 4).
    case http
    /// Sessions opened and held; the daemon's RSS per session; one call each afterwards.
    case idle
    /// Connect storm: open a session (hello → welcome), end it (`_dsb.closePage`), repeat.
    case connect
    /// Reconnect storm: drop the socket and resume the session (hello with token), repeat.
    case resume
    /// Plain WebSocket echo (the C echo server of `bench/lws-echo.c`): text frames, FIFO.
    case echo
    /// Many sessions each calling `echo.syn` at a steady rate (default once a second, at a
    /// random phase), as real pages do: latency under a realistic load of many quiet pages.
    case paced

    /// The unit of the headline throughput.
    var unit: String {
        switch self {
        case .syn, .http, .paced: return "calls/s"
        case .async: return "cb/s"
        case .invoke: return "invokes/s"
        case .idle: return "sessions/s"
        case .connect: return "sessions/s"
        case .resume: return "resumes/s"
        case .echo: return "echoes/s"
        }
    }

    /// Whether each connection speaks the DSBridge page protocol over a WebSocket.
    var isPageProtocol: Bool {
        switch self {
        case .syn, .async, .invoke, .idle, .connect, .resume, .paced: return true
        case .http, .echo: return false
        }
    }

    /// Whether connections are opened and closed continuously (storms) instead of held.
    var isStorm: Bool { self == .connect || self == .resume }
}

/// Everything a run needs, validated. Shared read-only by every worker thread.
struct BenchOptions: Sendable {
    var scenario: Scenario
    /// Server address and port.
    var host = "127.0.0.1"
    var port = 8080
    /// Sessions (connections) held, or concurrent cycles for storms.
    var sessions = 64
    /// Operations kept in flight per session (`syn`, `async`, `echo`: calls; `invoke`: batches).
    var inFlight = 8
    /// Bytes of the payload string (`syn`, `invoke`, `http`) or of each echo frame (`echo`).
    var payloadBytes = 64
    /// Seconds measured, after the warm-up.
    var duration = 10.0
    /// Seconds run before measuring.
    var warmup = 2.0
    /// Client threads, each with its own libwebsockets context.
    var threads = 1
    /// Local addresses to bind client sockets to, used in turn (empty: the kernel picks).
    var sources: [String] = []
    /// The server's process id, for its CPU time and RSS from /proc.
    var serverPID: Int32?
    /// Progress completions per `async` call (a final `cb` follows them).
    var progressCount = 10
    /// The echo method syn, http and idle call (`echo.syn`, which is `@nonblocking`;
    /// `test.echo` is the same without it, so it runs on a worker).
    var method = "echo.syn"
    /// Invokes per `test.pushInvokes` trigger.
    var invokeBatch = 32
    /// The method the `invoke` trigger calls (`cluster.pushInvokes`: made by another node).
    var triggerMethod = "test.pushInvokes"
    /// Send everything due in one (batch) frame, as web/dsbridge.js does, instead of one
    /// frame per message.
    var coalesce = false
    /// Milliseconds from the first unacknowledged message to an ack sent alone.
    var ackDelayMs: UInt64 = 1000
    /// An ack due goes with the next call, in the same frame (as web/dsbridge.js does).
    var piggybackAcks = true
    /// Connections being opened at once per thread (handshakes in progress).
    var connectConcurrency = 128
    /// `idle`, `paced`, `http`: the server is the plain echo server (no hello; `http`: the
    /// call's request posted, its body expected back).
    var rawEcho = false
    /// Seconds allowed for every session to open.
    var openTimeout = 30.0
    /// `paced`: calls per second each session makes.
    var rate = 1.0
    /// The event loop of each worker's lws context.
    var clientLoop = ClientLoopKind.poll
    /// Print JSON instead of a table.
    var json = false
    /// No progress line on stderr.
    var quiet = false

    /// The method the bench registers as a page and asks the server to invoke.
    static let invokedMethod = "bench.answer"
}

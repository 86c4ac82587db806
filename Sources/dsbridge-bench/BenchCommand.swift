// SPDX-License-Identifier: MIT
import ArgumentParser
import CLibWebSockets
import Foundation

extension Scenario: ExpressibleByArgument {}
extension ClientLoopKind: ExpressibleByArgument {}

/// `dsbridge-bench`: the load generator of dsbridged (and of the C echo server it is
/// compared with). Speaks PROTOCOL.md on the libwebsockets client API.
@main
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dsbridge-bench",
        abstract: "Load generator for dsbridged (PROTOCOL.md) and the plain lws echo server.",
        discussion: """
            Scenarios: syn (echo.syn round trips), async (test.progress: ret + N progress cb + final cb), \
            invoke (native-initiated invokes via test.pushInvokes, answered with _dsb.returnValue), \
            http (POST /dsbridge/call on keep-alive connections), idle (hold sessions; server RSS per \
            session; one call each afterwards), connect (sessions/s: hello, welcome, closePage), \
            resume (resumes/s: drop the socket, hello with token), echo (raw text frames against \
            bench/lws-echo.c), paced (every session calls echo.syn --rate times a second at a random \
            phase: many quiet pages, as in production). The server needs --demo for the bridge scenarios. A progress line goes \
            to stderr each second; the report to stdout (a table, or JSON with --json).
            """
    )

    @Argument(help: "What to measure: \(Scenario.allCases.map(\.rawValue).joined(separator: ", ")).")
    var scenario: Scenario

    @Option(help: "Server address.") var host = "127.0.0.1"
    @Option(help: "Server port (the page listener, or the echo server's port).") var port: Int
    @Option(help: "Sessions (connections) held; for connect: cycles running at once.") var sessions = 64
    @Option(name: .customLong("inflight"), help: "In flight per session: calls (syn, async, echo) or invoke batches (invoke).")
    var inFlight = 8
    @Option(help: "Payload bytes: the string echoed by echo.syn / invokes, or the echo frame size.") var payload = 64
    @Option(help: "Seconds measured (idle: seconds held).") var duration = 10.0
    @Option(help: "Seconds of load before measuring.") var warmup = 2.0
    @Option(help: "Client threads, each with its own libwebsockets context.") var threads = 1
    @Option(
        name: .customLong("source"),
        help: "Local address(es) to bind to, in turn: a list (127.0.0.2,127.0.0.3) or a range (127.0.0.2-127.0.0.9).")
    var sources: [String] = []
    @Option(help: "Server process id: its CPU and RSS are read from /proc.") var pid: Int32?
    @Option(help: "async: progress completions per call (a final cb follows).") var progressCount = 10
    @Option(help: "invoke: invokes asked for per test.pushInvokes trigger.") var invokeBatch = 32
    @Option(
        help:
            "invoke: the method that makes the invokes (cluster.pushInvokes: another node of a cluster makes them, each crossing nodes)."
    )
    var triggerMethod = "test.pushInvokes"
    @Option(help: "syn, http, idle: the method called with the payload, answering it unchanged (echo.syn is @nonblocking; test.echo runs on a worker).")
    var method = "echo.syn"
    @Option(help: "Connections being opened at once, per thread.") var connectConcurrency = 128
    @Option(help: "Seconds allowed for all sessions to open.") var openTimeout = 30.0
    @Option(help: "paced: calls per second each session makes.") var rate = 1.0
    @Option(help: "Client event loop: poll (lws' own) or uv (libuv, epoll). Default: uv for paced and idle, poll otherwise.")
    var clientLoop: ClientLoopKind?
    @Flag(
        help:
            "idle, paced, http: the server is the plain echo server (WebSockets, no hello; paced sends raw frames; http posts the call's request and expects its body back)."
    )
    var rawEcho = false
    @Flag(help: "Send every message due in one batch frame, as web/dsbridge.js does per microtask (default: one frame per message).")
    var coalesce = false
    @Option(help: "Milliseconds from the first unacknowledged message to an ack sent alone (web/dsbridge.js: 1000).")
    var ackDelayMs = 1000
    @Flag(
        inversion: .prefixedNo,
        help: "An ack due rides in front of the page's next call, in the same frame, as web/dsbridge.js does (--no-piggyback-acks: always alone)."
    )
    var piggybackAcks = true
    @Flag(help: "Print the report as JSON.") var json = false
    @Flag(help: "No progress line on stderr.") var quiet = false
    @Option(help: "libwebsockets log level bits (LLL_*), default errors and warnings.") var lwsLogLevel: Int32 = 3

    func validate() throws {
        guard (1...65_535).contains(port) else { throw ValidationError("--port must be 1...65535") }
        guard sessions >= 1 else { throw ValidationError("--sessions must be at least 1") }
        guard (1...4_096).contains(inFlight) else { throw ValidationError("--inflight must be 1...4096") }
        guard (0...1_000_000).contains(payload) else { throw ValidationError("--payload must be 0...1000000") }
        guard duration > 0, warmup >= 0 else { throw ValidationError("--duration must be > 0 and --warmup >= 0") }
        guard (1...64).contains(threads) else { throw ValidationError("--threads must be 1...64") }
        guard threads <= sessions else { throw ValidationError("--threads must not exceed --sessions") }
        guard (0...10_000).contains(progressCount) else { throw ValidationError("--progress-count must be 0...10000") }
        guard (1...5_000).contains(invokeBatch) else { throw ValidationError("--invoke-batch must be 1...5000") }
        guard connectConcurrency >= 1 else { throw ValidationError("--connect-concurrency must be at least 1") }
        guard (1...60_000).contains(ackDelayMs) else { throw ValidationError("--ack-delay-ms must be 1...60000") }
        guard rate > 0, rate <= 1_000 else { throw ValidationError("--rate must be > 0 and at most 1000") }
        if scenario == .paced, clientLoop == .poll {
            throw ValidationError("paced needs --client-loop uv (its calls are timed by a libuv timer)")
        }
        _ = try Self.expand(sources)
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        lws_set_log_level(lwsLogLevel, nil)
        var options = BenchOptions(scenario: scenario)
        options.host = host
        options.port = port
        options.sessions = sessions
        options.inFlight = inFlight
        options.payloadBytes = payload
        options.duration = duration
        options.warmup = warmup
        options.threads = threads
        options.sources = try Self.expand(sources)
        options.serverPID = pid
        options.progressCount = progressCount
        options.invokeBatch = invokeBatch
        options.triggerMethod = triggerMethod
        options.coalesce = coalesce
        options.ackDelayMs = UInt64(ackDelayMs)
        options.piggybackAcks = piggybackAcks
        options.method = method
        options.connectConcurrency = connectConcurrency
        options.openTimeout = openTimeout
        options.rawEcho = rawEcho
        options.rate = rate
        options.clientLoop = clientLoop ?? (scenario == .paced || scenario == .idle ? .uv : .poll)
        options.json = json
        options.quiet = quiet

        let report: BenchReport
        do {
            report = try BenchRunner(options: options).run()
        } catch {
            FileHandle.standardError.write(Data("dsbridge-bench: \(error.description)\n".utf8))
            throw ExitCode(1)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = (try? encoder.encode(report)) ?? Data("{}".utf8)
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        } else {
            print(ReportTable.render(report))
        }
        if let idle = report.idle {
            if idle.answered < idle.sessions || idle.sessions < sessions {
                FileHandle.standardError.write(Data("dsbridge-bench: \(idle.answered) of \(sessions) sessions answered\n".utf8))
                throw ExitCode(1)
            }
        } else if report.completed == 0 {
            FileHandle.standardError.write(Data("dsbridge-bench: \(BenchError.nothingCompleted(scenario: scenario.rawValue).description)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// `a,b` lists and `127.0.0.2-127.0.0.9` ranges (last octet) → addresses.
    static func expand(_ specs: [String]) throws(BenchError) -> [String] {
        var out: [String] = []
        for spec in specs.flatMap({ $0.split(separator: ",").map(String.init) }) {
            let parts = spec.split(separator: "-").map(String.init)
            if parts.count == 1 {
                guard parts[0].split(separator: ".").count == 4 else { throw .invalidOption("--source \(spec): not an IPv4 address") }
                out.append(parts[0])
            } else if parts.count == 2 {
                let a = parts[0].split(separator: ".")
                let b = parts[1].split(separator: ".")
                guard a.count == 4, b.count == 4, a[0..<3] == b[0..<3], let lo = Int(a[3]), let hi = Int(b[3]), lo <= hi, hi < 256 else {
                    throw .invalidOption("--source \(spec): a range must differ only in the last octet, low to high")
                }
                for n in lo...hi { out.append(a[0..<3].joined(separator: ".") + ".\(n)") }
            } else {
                throw .invalidOption("--source \(spec)")
            }
        }
        return out
    }
}

// SPDX-License-Identifier: MIT
import ArgumentParser
import DSBridge
import DSBridgeDemo
import DSBridgeServer
import Dispatch
import Foundation
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// `dsbridged`: serves DSBridge pages over WebSockets (PROTOCOL.md 7). A `ServiceGroup`
/// runs the ``BridgeServer`` and the ``ServingAnnouncer``; SIGTERM or SIGINT shuts it
/// down gracefully (the drain), a second one exits at once (``SecondSignal``).
@main
struct DaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dsbridged",
        abstract: "Lets browser pages call Swift interfaces with the DSBridge JavaScript API.",
        discussion: """
            Pages load /dsbridge.js from this server and call native methods over one \
            WebSocket per page. Values in --config are overridden by flags.
            """
    )

    @Option(help: "Address of the page listener.") var host: String?
    @Option(help: "Port of the page listener (0 = any free port).") var port: Int?
    @Option(help: "Address of the admin listener.") var adminHost: String?
    @Option(help: "Port of the admin listener (0 = any free port).") var adminPort: Int?
    @Option(help: "Bearer token of the admin API.") var adminToken: String?
    @Option(help: "Folder of static files served to pages.") var webRoot: String?
    @Flag(help: "Register DSBridge's demo interfaces.") var demo = false
    @Option(help: "Milliseconds between callProgress values in demo mode.") var demoTickMs: Int?
    @Option(help: "An allowed page origin (repeatable).") var allowedOrigin: [String] = []
    @Option(help: "A proxy whose X-Forwarded-For names the client (repeatable, exact address).") var trustedProxy: [String] = []
    @Option(help: "A JSON configuration file (keys are the flag names).") var config: String?
    @Option(help: "How long a session outlives its socket.") var graceMs: Int?
    @Option(help: "How long a socket may wait before hello.") var helloTimeoutMs: Int?
    @Option(help: "Silence before a heartbeat.") var heartbeatMs: Int?
    @Option(help: "How long a sync call waits for earlier socket calls.") var afterTimeoutMs: Int?
    @Option(help: "Largest accepted message in bytes.") var maxMessageBytes: Int?
    @Option(help: "How long a drain waits before cutting.") var drainMs: Int?
    @Option(help: "Shared secret every hello must carry as auth.") var authToken: String?
    @Option(help: "PEM certificate: serve https:// and wss:// (needs --tls-key).") var tlsCert: String?
    @Option(help: "PEM private key of --tls-cert.") var tlsKey: String?
    @Option(help: "Sessions at most.") var maxSessions: Int?
    @Option(help: "Sessions at most per client address.") var maxSessionsPerAddress: Int?
    @Option(help: "Pending socket calls per session before reading pauses.") var maxCallsPending: Int?
    @Option(help: "Running async calls per session.") var maxAsyncCalls: Int?
    @Option(help: "Deepest JSON nesting accepted.") var maxDepth: Int?
    @Option(help: "Calls a session may start per second (0 = no limit); faster calls wait.") var maxCallsPerSecond: Int?
    @Option(help: "How long an HTTP request body may take to arrive (408 after).") var bodyTimeoutMs: Int?
    @Option(help: "Largest HTTP request head (request line + headers) in bytes, 1024-65535.") var maxHeaderBytes: Int?
    @Option(help: "Unacknowledged messages kept per session.") var replayMaxMessages: Int?
    @Option(help: "Unacknowledged bytes kept per session.") var replayMaxBytes: Int?
    @Option(help: "Bytes held for all sessions together before the largest holders are ended (default: a quarter of cgroup memory.max, else of physical memory).")
    var memoryBudget: Int?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel: String?
    @Flag(help: "Check the settings (flags, environment, config file), print the effective ones and exit.") var checkConfig = false

    func run() async throws {
        // A write to a closed pipe is an error (dropped by StandardStreams), not a signal.
        signal(SIGPIPE, SIG_IGN)
        let settings: DaemonSettings
        do {
            settings = try DaemonSettings.resolve(flags: self)
        } catch {
            throw ValidationError(error.description)
        }
        if checkConfig {
            print("configuration ok")
            for line in SettingsSummary.lines(of: settings) { print("  " + line) }
            return
        }
        let journal = JournalLogHandler.stderrIsJournal || ProcessInfo.processInfo.environment["DSBRIDGED_LOG_FORMAT"] == "journal"
        LoggingSystem.bootstrap { label in
            if journal {
                var handler = JournalLogHandler(label: label)
                handler.logLevel = settings.logLevel
                return handler
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = settings.logLevel
            return handler
        }
        let logger = Logger(label: "dsbridged")
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[LoopLag.label] = LoopLag.buckets
        MetricsSystem.bootstrap(factory)
        var lifecycle = SessionLifecycle()
        lifecycle.dismissed = { session in
            logger.info("page closed itself (window.close)", metadata: ["bridge.session": "\(session.id)"])
        }
        logger.notice("memory budget \(settings.bridge.memoryBudget) bytes (\(settings.memoryBudgetOrigin)): above it the sessions holding the most are ended, above 90% of it new sessions are refused")
        let bridge = Bridge(configuration: settings.bridge, logger: logger, lifecycle: lifecycle)
        if settings.demo { DemoInterfaces.register(on: bridge, tickMs: settings.demoTickMs) }
        let server = BridgeServer(bridge: bridge, configuration: settings.server, logger: logger,
                                  metricsRenderer: { registry.emitToBuffer() })
        // Started before the group, so a start that fails exits 1 with its reason.
        let ports: ListeningPorts
        do {
            ports = try await server.listen()
        } catch {
            logger.critical("\(error.description)")
            throw ExitCode(1)
        }
        var warnings: [String] = []
        if let warning = server.descriptorLimit?.warning(maxSessions: settings.bridge.maxSessions) { warnings.append(warning) }
        if settings.server.host == "0.0.0.0" || settings.server.host == "::" {
            warnings.append("warning: listening on a wildcard address; only loopback origins are allowed until --allowed-origin is given")
        }
        let announcer = ServingAnnouncer(server: server, ports: ports, warnings: warnings, journal: journal,
                                         demo: settings.demo, notifier: SystemdNotifier(), logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [
                // Should the service thread end by itself, the announcer still says STOPPING=1.
                .init(service: server, successTerminationBehavior: .gracefullyShutdownGroup, serviceName: "BridgeServer"),
                .init(service: announcer, serviceName: "ServingAnnouncer"),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        do {
            try await group.run()
        } catch {
            logger.critical("stopped: \(error)")
            throw ExitCode(1)
        }
        logger.notice("stopped")
    }
}

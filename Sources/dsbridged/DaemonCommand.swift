// SPDX-License-Identifier: MIT
import ArgumentParser
import DSBridge
import DSBridgeCluster
import DSBridgeDemo
import DSBridgeServer
import DSBridgedSettings
import Dispatch
import Foundation
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import Synchronization

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
            WebSocket per page. Every setting is a flag, a DSBRIDGED_* environment variable \
            and a key of the --config file; flags win over the environment, which wins over the file.
            """
    )

    /// The settings' flags, declared by the settings table (``SettingFlags``).
    @OptionGroup(title: "Settings") var settingFlags: SettingFlags
    @Flag(help: "Check the settings (flags, environment, config file), print the effective ones and exit.") var checkConfig = false

    func run() async throws {
        // A write to a closed pipe is an error (dropped by StandardStreams), not a signal.
        signal(SIGPIPE, SIG_IGN)
        let settings: DaemonSettings
        do {
            settings = try DaemonSettings.resolve(flags: settingFlags)
        } catch {
            throw ValidationError(error.description)
        }
        if checkConfig {
            // The cluster settings are checked as a start checks them (the URL's form, the
            // node's name), without connecting.
            let defaultNodeID = ClusterNodeName.default(port: settings.server.port)
            if let url = settings.redisURL {
                do {
                    _ = try ClusterNode.validated(nodeID: settings.nodeID ?? defaultNodeID, redisURL: url)
                } catch {
                    throw ValidationError("--redis: \(error.description)")
                }
            }
            print("configuration ok")
            let derived: [SettingKey: String] = settings.redisURL == nil ? [:] : [.nodeID: defaultNodeID]
            for line in SettingsSummary.lines(of: settings, derived: derived) { print("  " + line) }
            // What a start from this shell would warn about (an unset --max-sessions always fits).
            let current = DescriptorLimit.current()
            let plan = DescriptorLimit(currentSoft: current.soft, hard: current.hard, maxSessions: settings.bridge.maxSessions)
            if let warning = plan.warning(maxSessions: settings.bridge.maxSessions) { StandardStreams.err(warning + "\n") }
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
        factory.durationHistogramBuckets[CallDurationHistogram.label] = CallDurationHistogram.buckets
        MetricsSystem.bootstrap(factory)
        var lifecycle = SessionLifecycle()
        lifecycle.dismissed = { session in
            logger.info("page closed itself (window.close)", metadata: ["bridge.session": "\(session.id)"])
        }
        logger.notice("max sessions \(settings.bridge.maxSessions) (\(settings.maxSessionsOrigin))")
        logger.notice(
            "memory budget \(settings.bridge.memoryBudget) bytes (\(settings.memoryBudgetOrigin)): above 90% of it the sessions holding the most are ended, above it new sessions are refused"
        )
        // Cluster mode (docs/CLUSTER.md): the journal exists before the bridge, the node after it.
        let clusterParts = try Self.clusterParts(settings, logger: logger)
        let tracing: (sink: any CallSpanSink, services: [any Service])?
        do {
            tracing = try DaemonTracing.make(settings, logger: logger)
        } catch {
            throw ValidationError("--otel-endpoint: \(error)")
        }
        let bridge = Bridge(
            configuration: settings.bridge, logger: logger, lifecycle: lifecycle, journal: clusterParts?.journal, callSpans: tracing?.sink)
        if settings.demo { DemoInterfaces.register(on: bridge, tickMs: settings.demoTickMs) }
        let serverBox = ServerBox()
        let cluster = clusterParts.map { parts in
            ClusterNode(
                parts: parts, bridge: bridge, address: "\(settings.server.host):\(settings.server.port)", logger: logger,
                isDraining: { serverBox.server?.isDraining ?? false })
        }
        let server = BridgeServer(
            bridge: bridge, configuration: settings.server, logger: logger,
            metricsRenderer: { registry.emitToBuffer() }, cluster: cluster)
        serverBox.server = server
        if settings.demo, let cluster { bridge.addInterface(ClusterTestAPI(node: cluster), by: "cluster") }
        cluster?.start()
        defer { cluster?.stop() }
        // Serve once Redis is connected (or its first attempts are over: then this node's own
        // sessions are served, and cross-node requests answer 503 until Redis is back).
        if let cluster, await !cluster.waitUntilConnected(timeoutMs: 2_000) {
            logger.warning("cluster: Redis not reachable at start; serving this node's sessions only until it is")
        }
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
        let announcer = ServingAnnouncer(
            server: server, ports: ports, warnings: warnings, journal: journal,
            demo: settings.demo, notifier: SystemdNotifier(), logger: logger)
        // Services stop in reverse order: the span exporter last, so it sends the drain's spans.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        for service in tracing?.services ?? [] { services.append(.init(service: service, serviceName: "\(type(of: service))")) }
        services += [
            // Should the service thread end by itself, the announcer still says STOPPING=1.
            .init(service: server, successTerminationBehavior: .gracefullyShutdownGroup, serviceName: "BridgeServer"),
            .init(service: announcer, serviceName: "ServingAnnouncer"),
        ]
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services,
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

    /// The Redis connections and journal of cluster mode (`--redis`), or `nil`.
    private static func clusterParts(_ settings: DaemonSettings, logger: Logger) throws -> ClusterNode.Parts? {
        guard let url = settings.redisURL else { return nil }
        let nodeID = settings.nodeID ?? ClusterNodeName.default(port: settings.server.port)
        do {
            return try ClusterNode.Parts(nodeID: nodeID, redisURL: url, graceMs: settings.bridge.graceMs, logger: logger)
        } catch {
            throw ValidationError("--redis: \(error.description)")
        }
    }
}

/// The server, once made, for the cluster node's drain check (the node is made first).
final class ServerBox: Sendable {
    private let value = Mutex<BridgeServer?>(nil)
    var server: BridgeServer? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

// SPDX-License-Identifier: MIT
import DSBridgeServer
import Logging
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// What the daemon tells the world about its state, as a service of its `ServiceGroup`
/// beside the ``BridgeServer``: once it runs (the group traps SIGTERM and SIGINT by then,
/// so a signal sent right after the listening line is never lost) the first stdout line
/// `listening port=P admin-port=A` (PROTOCOL.md 7), the start-up warnings, systemd's
/// `READY=1` and its watchdog, and ``SecondSignal`` counts from then on; on graceful
/// shutdown `STOPPING=1`. Listed after the server,
/// it is shut down first, so `STOPPING=1` goes out as the drain begins.
struct ServingAnnouncer: Service {
    let server: BridgeServer
    let ports: ListeningPorts
    /// Lines starting `warning:` for stderr (PROTOCOL.md 1.1, 2.6).
    let warnings: [String]
    /// Whether stderr goes to the journal (warnings then carry the priority prefix `<4>`).
    let journal: Bool
    let demo: Bool
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        // Outlives this service: it must still count during the drain that follows.
        _ = await SecondSignal.watch(logger: logger)
        announceServing()
        try await gracefulShutdown()
        logger.notice("stopping: draining, then closing sockets (1001)")
        notifier.notify("STOPPING=1\nSTATUS=draining")
    }

    private func announceServing() {
        StandardStreams.out("listening port=\(ports.port) admin-port=\(ports.adminPort)\n")
        // journald strips the priority prefix.
        for warning in warnings { StandardStreams.err((journal ? "<4>" : "") + warning + "\n") }
        notifier.notify("READY=1\nSTATUS=serving on port \(ports.port)\nMAINPID=\(getpid())")
        // Pings only while the network thread answers (a wedged one gets the service restarted).
        let watchdogSeconds = notifier.watchdogSeconds ?? 0
        notifier.startWatchdog(
            isAlive: { [server] in server.networkThreadAnswered() },
            stalled: { [logger] missed in
                if missed == 1 || missed % 10 == 0 {
                    logger.error(
                        "watchdog: the network thread has not answered for \(Int(Double(missed) * watchdogSeconds * 1000)) ms; systemd's watchdog is not pinged"
                    )
                }
            })
        logger.info("serving", metadata: ["bridge.port": "\(ports.port)", "bridge.admin-port": "\(ports.adminPort)", "bridge.demo": "\(demo)"])
    }
}

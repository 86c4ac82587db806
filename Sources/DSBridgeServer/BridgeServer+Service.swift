// SPDX-License-Identifier: MIT
import ServiceLifecycle

/// A ``BridgeServer`` runs in a swift-service-lifecycle `ServiceGroup` beside an app's
/// own services:
///
/// ```swift
/// let server = BridgeServer(bridge: bridge, configuration: configuration, logger: logger)
/// let group = ServiceGroup(
///     configuration: ServiceGroupConfiguration(
///         services: [.init(service: server), .init(service: myOtherService)],
///         gracefulShutdownSignals: [.sigterm, .sigint],
///         logger: logger))
/// try await group.run()
/// ```
extension BridgeServer: Service {
    /// Starts the server unless it was started already (``start()`` or ``listen()``) and
    /// returns once its service thread has ended.
    ///
    /// - A graceful shutdown (a signal the group traps, `triggerGracefulShutdown()`, or a
    ///   service configured to shut the group down gracefully when it ends) begins the
    ///   drain SIGTERM begins in `dsbridged` (PROTOCOL.md 7): no new sockets, `/healthz`
    ///   503, every socket closed with 1001 once its in-flight sync calls are answered;
    ///   `run()` returns within `drainMs` (plus at most 500 ms for the last closes).
    /// - Cancellation cuts the drain short: every socket is closed with 1001 at once.
    /// - ``stop()`` called directly ends it the same way as a graceful shutdown.
    ///
    /// The wait suspends the task; no thread of the concurrency pool is held.
    /// - Throws: ``ServerStartError`` when the server could not start (nothing listens then).
    public func run() async throws {
        _ = try await listen()
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await stopped()
            } onGracefulShutdown: { [self] in
                stop()
            }
        } onCancel: { [self] in
            stopNow()
        }
    }
}

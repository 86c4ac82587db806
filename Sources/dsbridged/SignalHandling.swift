// SPDX-License-Identifier: MIT
import DSBridgeServer
import Dispatch
import Foundation
import Logging
import Synchronization

/// SIGTERM/SIGINT: the first stops the server gracefully (sockets closed with 1001), a
/// second exits at once. Nothing runs in signal context: handlers are dispatch sources.
enum SignalHandling {
    /// Starts handling the signals; `onStop` runs when the first one arrives. Call it before
    /// announcing the ports, so a signal sent right after that is never lost.
    static func install(server: BridgeServer, logger: Logger, onStop: @escaping @Sendable () -> Void) -> [DispatchSourceSignal] {
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        let queue = DispatchQueue(label: "signals")
        var sources: [DispatchSourceSignal] = []
        let received = Atomic<Int>(0)
        for sig in [SIGTERM, SIGINT] {
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler {
                if received.add(1, ordering: .relaxed).newValue > 1 {
                    logger.notice("second signal: exiting now")
                    exit(0)
                }
                logger.notice("stopping: draining, then closing sockets (1001)")
                onStop()
                server.stop()
            }
            source.resume()
            sources.append(source)
        }
        return sources
    }

    /// Blocks until the server stopped, then exits 0.
    static func waitAndExit(server: BridgeServer, logger: Logger, sources: [DispatchSourceSignal]) -> Never {
        server.waitUntilStopped()
        logger.notice("stopped")
        withExtendedLifetime(sources) {}
        exit(0)
    }
}

// SPDX-License-Identifier: MIT
import Logging
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// PROTOCOL.md 7: the first SIGTERM or SIGINT drains (the `ServiceGroup` turns it into a
/// graceful shutdown); a second one exits 0 at once (`_exit`: no exit handlers run under the
/// threads still working). The `ServiceGroup` does not escalate
/// a repeated graceful-shutdown signal, so this counts them itself: libdispatch delivers
/// each signal to every source trapping it, the group's and this one. Nothing runs in
/// signal context.
enum SecondSignal {
    /// Starts counting SIGTERM and SIGINT; returns once the signals are trapped. Call it
    /// once the group traps them too (from one of its services), so no signal is counted
    /// here alone. The task runs until the process ends or it is cancelled.
    static func watch(logger: Logger) async -> Task<Void, Never> {
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        return Task {
            var received = 0
            for await _ in signals {
                received += 1
                if received > 1 {
                    logger.notice("second signal: exiting now")
                    // `_exit`, not `exit`: `exit`'s handlers (OpenSSL's cleanup among them)
                    // would free what the still-running service thread may be using.
                    fflush(nil)
                    _exit(0)
                }
            }
        }
    }
}

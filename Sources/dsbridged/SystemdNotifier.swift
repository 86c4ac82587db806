// SPDX-License-Identifier: MIT
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// systemd's notify protocol (`sd_notify`): one datagram of `KEY=VALUE` lines to the Unix
/// socket named by `$NOTIFY_SOCKET` (a leading `@` means the abstract namespace). Without
/// `$NOTIFY_SOCKET` every call does nothing, as `sd_notify` does.
struct SystemdNotifier: Sendable {
    /// The socket path, or `nil` when not run by systemd with `Type=notify`.
    let socketPath: String?
    /// Half of `$WATCHDOG_USEC` when the watchdog is on for this process.
    let watchdogInterval: Duration?

    init(environment: [String: String] = ProcessInfo.processInfo.environment, pid: Int32 = getpid()) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        watchdogInterval = Self.watchdogInterval(environment: environment, pid: pid)
    }

    /// `$WATCHDOG_USEC / 2`, if set, positive, and meant for `pid` (`$WATCHDOG_PID`, when set).
    static func watchdogInterval(environment: [String: String], pid: Int32) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 else { return nil }
        if let owner = environment["WATCHDOG_PID"], Int32(owner) != pid { return nil }
        return .microseconds(Int64(usec / 2))
    }

    /// Sends `state` (e.g. `"READY=1"`); returns false when it could not be delivered.
    @discardableResult
    func notify(_ state: String) -> Bool {
        guard let path = socketPath else { return true }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                message.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, length) }
            }
        }
        return sent == message.count
    }

    /// ``watchdogInterval`` in seconds.
    var watchdogSeconds: Double? {
        watchdogInterval.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
    }

    /// Every `watchdogInterval`, on its own thread: pings `WATCHDOG=1` when `isAlive()`
    /// says the daemon still works, else calls `stalled` with how many intervals in a row
    /// went without a ping (systemd restarts the service once `WatchdogSec` passes
    /// without one).
    func startWatchdog(isAlive: @escaping @Sendable () -> Bool, stalled: @escaping @Sendable (Int) -> Void) {
        guard let seconds = watchdogSeconds else { return }
        Thread.detachNewThread {
            var missed = 0
            while true {
                if isAlive() {
                    missed = 0
                    notify("WATCHDOG=1")
                } else {
                    missed += 1
                    stalled(missed)
                }
                Thread.sleep(forTimeInterval: seconds)
            }
        }
    }
}

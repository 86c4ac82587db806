// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// Writes to stdout and stderr that never stop the daemon. `FileHandle.write(_:)` traps
/// when the write fails (a full disk, `/dev/full`, a reader that went away); a log line or
/// the start-up line that cannot be written is dropped instead. (SIGPIPE is ignored, see
/// ``DaemonCommand/run()``, so a closed pipe is an error here, not a signal.)
enum StandardStreams {
    /// Writes all of `text` to `descriptor`, retrying on EINTR.
    /// - Returns: whether every byte was written.
    @discardableResult
    static func write(_ text: String, to descriptor: Int32) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.write(descriptor, base + offset, buffer.count - offset)
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    /// Writes to stdout (the `listening` line).
    @discardableResult
    static func out(_ text: String) -> Bool { write(text, to: STDOUT_FILENO) }

    /// Writes to stderr (warnings, journal log lines).
    @discardableResult
    static func err(_ text: String) -> Bool { write(text, to: STDERR_FILENO) }
}

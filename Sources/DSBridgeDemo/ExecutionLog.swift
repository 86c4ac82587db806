// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Synchronization

/// The file `test.record` appends to (`DSBRIDGED_EXEC_LOG`): one line of JSON per call that
/// ran, written with one `write` to a descriptor opened with `O_APPEND`, so lines of
/// several processes sharing the file never mix.
final class ExecutionLog: Sendable {
    /// The log named by `DSBRIDGED_EXEC_LOG`, or `nil` (unset or not writable).
    static let shared: ExecutionLog? = ProcessInfo.processInfo.environment["DSBRIDGED_EXEC_LOG"].flatMap(ExecutionLog.init)

    private let fd: Int32
    private let lock = Mutex(())

    private init?(path: String) {
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { return nil }
    }

    deinit { close(fd) }

    func append(_ value: JSONValue) {
        let line = JSONWriter.bytes(value) + [UInt8(ascii: "\n")]
        lock.withLock { _ in
            _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
    }
}

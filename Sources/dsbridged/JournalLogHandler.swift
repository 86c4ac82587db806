// SPDX-License-Identifier: MIT
import Foundation
import Logging
import Synchronization

/// Log lines for the systemd journal: a syslog priority prefix (`<6>`), no timestamp (the
/// journal adds one), metadata as `key=value`. Used when `$JOURNAL_STREAM` says stderr is
/// connected to the journal.
struct JournalLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    let label: String
    private static let lock = Mutex(())

    init(label: String) {
        self.label = label
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The syslog priority of a swift-log level.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    /// One journal line (without the newline).
    static func line(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata) -> String {
        var text = "<\(priority(level))>\(message)"
        for key in metadata.keys.sorted() {
            text += " \(key)=\(metadata[key].map { "\($0)" } ?? "")"
        }
        return text.replacingOccurrences(of: "\n", with: " ")
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let text = Self.line(level: event.level, message: event.message, metadata: merged) + "\n"
        // A line that cannot be written (stderr closed) has nowhere else to go: dropped.
        Self.lock.withLock { _ in _ = StandardStreams.err(text) }
    }

    /// Whether stderr is the journal: `$JOURNAL_STREAM` is `device:inode` of stderr.
    static var stderrIsJournal: Bool {
        guard let value = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var st = stat()
        guard fstat(2, &st) == 0 else { return false }
        return UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode
    }
}

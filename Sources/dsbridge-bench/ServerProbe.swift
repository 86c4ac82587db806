// SPDX-License-Identifier: MIT
import Glibc

/// Reads a process's CPU time and resident memory from /proc (Linux).
struct ServerProbe: Sendable {
    /// One reading.
    struct Sample: Sendable {
        /// User + system CPU time, seconds.
        var cpuSeconds: Double
        /// Resident set size, bytes.
        var rssBytes: Int
        /// When it was taken (monotonic ns).
        var at: UInt64
    }

    let pid: Int32
    private let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    init(pid: Int32) {
        self.pid = pid
    }

    /// The process's figures now, or `nil` when it is gone or unreadable.
    func sample() -> Sample? {
        guard let stat = Self.read("/proc/\(pid)/stat"), let status = Self.read("/proc/\(pid)/status") else { return nil }
        // Fields after the ")" that ends the command name: state is field 3; utime 14, stime 15.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return nil }
        var rss = 0
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 2, let kib = Int(parts[1]) { rss = kib * 1024 }
        }
        return Sample(cpuSeconds: (utime + stime) / ticksPerSecond, rssBytes: rss, at: monotonicNanos())
    }

    /// This process's own CPU time (the bench), seconds.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    private static func read(_ path: String) -> String? {
        guard let f = fopen(path, "r") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, 4096, f) }
            if n <= 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

// SPDX-License-Identifier: MIT
import Foundation
import Glibc

/// How much memory the daemon may use, and the memory budget's default (PROTOCOL.md 2.6):
/// a quarter of it. The limit is the cgroup v2 `memory.max` of the process's own cgroup
/// when that is a number (systemd's `MemoryMax=`, a container's limit), else the machine's
/// physical memory. The parsing and the choice are pure functions, tested on their own;
/// ``current()`` reads `/proc/self/cgroup` and `/sys/fs/cgroup`.
public struct MemoryLimit: Sendable, Equatable {
    /// Where the limit came from.
    public enum Source: Sendable, Equatable {
        /// The cgroup's `memory.max` (at this path).
        case cgroup(path: String)
        /// Physical memory (no cgroup limit was found).
        case physicalMemory
    }

    /// The memory the daemon may use, in bytes.
    public let bytes: Int
    public let source: Source

    public init(bytes: Int, source: Source) {
        self.bytes = bytes
        self.source = source
    }

    /// The budget's default: a quarter of ``bytes`` (at least 1).
    public var defaultBudget: Int { max(1, bytes / 4) }

    /// Words for the log: `cgroup memory.max (/sys/fs/cgroup/...)` or `physical memory`.
    public var sourceDescription: String {
        switch source {
        case .cgroup(let path): return "cgroup memory.max (\(path))"
        case .physicalMemory: return "physical memory"
        }
    }

    /// The cgroup v2 path of this process from the text of `/proc/self/cgroup`: the line
    /// `0::/PATH`; `nil` when there is none (cgroup v1 only).
    public static func cgroupPath(procSelfCgroup text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("0::") {
            let path = line.dropFirst(3).trimmingCharacters(in: .whitespaces)
            return path.hasPrefix("/") ? path : nil
        }
        return nil
    }

    /// The value of a `memory.max` file: a byte count, or `nil` for `max` (no limit) and
    /// anything that is not a positive integer.
    public static func parseMemoryMax(_ text: String) -> Int? {
        let word = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = Int(word), value > 0 else { return nil }
        return value
    }

    /// Picks the limit: the cgroup's when it is set and below physical memory, else
    /// physical memory.
    public static func choose(cgroupMax: Int?, cgroupFile: String?, physicalBytes: Int) -> MemoryLimit {
        if let cgroupMax, let cgroupFile, physicalBytes <= 0 || cgroupMax < physicalBytes {
            return MemoryLimit(bytes: cgroupMax, source: .cgroup(path: cgroupFile))
        }
        return MemoryLimit(bytes: max(physicalBytes, 1), source: .physicalMemory)
    }

    /// This process's limit, read from `/proc/self/cgroup`, `/sys/fs/cgroup/<path>/memory.max`
    /// and `sysconf` (physical pages × page size).
    public static func current(cgroupRoot: String = "/sys/fs/cgroup") -> MemoryLimit {
        let pages = sysconf(Int32(_SC_PHYS_PAGES))
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        var physicalBytes = 0
        if pages > 0, pageSize > 0 {
            let (product, overflow) = pages.multipliedReportingOverflow(by: pageSize)
            physicalBytes = overflow ? Int.max : product
        }
        var file: String?
        var cgroupMax: Int?
        if let text = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
            let path = cgroupPath(procSelfCgroup: text)
        {
            let candidate = cgroupRoot + (path == "/" ? "" : path) + "/memory.max"
            if let value = try? String(contentsOfFile: candidate, encoding: .utf8) {
                file = candidate
                cgroupMax = parseMemoryMax(value)
            }
        }
        return choose(cgroupMax: cgroupMax, cgroupFile: file, physicalBytes: physicalBytes)
    }
}

// SPDX-License-Identifier: MIT
import Benchmark
import RefCountProbe

extension BenchmarkMetric {
    /// Strong retains, counted by `RefCountProbe` on every thread.
    static let retains = BenchmarkMetric.custom("retains")
    /// Strong releases, counted by `RefCountProbe` on every thread.
    static let releases = BenchmarkMetric.custom("releases")
}

/// Retain and release counts over a stretch of a benchmark: all threads count, since a
/// bridge call hops to a worker thread and back. ordo-one/benchmark's own `.retainCount`
/// and `.releaseCount` crash on Linux with Swift 6.3 (RefCountProbe.c says why).
struct RefCountWindow {
    private let start: refcount_probe_counts

    /// Installs the probe, once; on failure prints why (retains and releases are then not
    /// measured) and returns false.
    static let available: Bool = {
        if refcount_probe_install() == 0 { return true }
        let reason = refcount_probe_error().map { String(cString: $0) } ?? "unknown"
        print("retains and releases are not counted: \(reason)")
        return false
    }()

    /// Starts counting.
    init() {
        refcount_probe_set_enabled(1)
        start = refcount_probe_read()
    }

    /// Stops counting and records the retains and releases since `init` as one sample of
    /// `benchmark`.
    func record(in benchmark: Benchmark) {
        let end = refcount_probe_read()
        refcount_probe_set_enabled(0)
        benchmark.measurement(.retains, Int(end.retains - start.retains))
        benchmark.measurement(.releases, Int(end.releases - start.releases))
    }
}

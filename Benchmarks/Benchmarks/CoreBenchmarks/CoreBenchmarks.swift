// SPDX-License-Identifier: MIT
import Benchmark
import CoreWorkload

/// One benchmark per workload, with per-operation figures (each iteration runs the step
/// 1000 times; the figures are divided back to one step): wall-clock time, malloc calls,
/// and strong retains and releases (``RefCountWindow``). `scripts/microbench.sh --check`
/// compares the counts with `Benchmarks/Thresholds/`; wall clock is only reported.
let benchmarks: @Sendable () -> Void = {
    let counting = RefCountWindow.available
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal] + (counting ? [.retains, .releases] : []),
        timeUnits: .nanoseconds,
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(1),
        maxIterations: 1_000
    )
    for workload in Workloads.all {
        switch workload.prepare() {
        case .sync(let step):
            nonisolated(unsafe) let step = step  // each benchmark runs on one thread at a time
            Benchmark(workload.id) { benchmark in
                let window = counting ? RefCountWindow() : nil
                for _ in benchmark.scaledIterations { step() }
                window?.record(in: benchmark)
            }
        case .async(let step):
            nonisolated(unsafe) let step = step  // each benchmark runs on one thread at a time
            Benchmark(workload.id) { benchmark async in
                let window = counting ? RefCountWindow() : nil
                for _ in benchmark.scaledIterations { await step() }
                window?.record(in: benchmark)
            }
        }
    }
}

// SPDX-License-Identifier: MIT
import Benchmark
import CoreWorkload

/// One benchmark per workload: wall-clock time and malloc calls, per operation (each
/// iteration runs the step 1000 times; the figures are divided back to one step).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
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
                for _ in benchmark.scaledIterations { step() }
            }
        case .async(let step):
            nonisolated(unsafe) let step = step  // each benchmark runs on one thread at a time
            Benchmark(workload.id) { benchmark async in
                for _ in benchmark.scaledIterations { await step() }
            }
        }
    }
}

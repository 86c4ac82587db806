// swift-tools-version: 6.2
// SPDX-License-Identifier: MIT
//
// Micro-benchmarks of the pure core's hot path (decode → dispatch → encode), kept out of the
// main package's build graph: they need ordo-one/benchmark and a release build. Run them with
// `scripts/microbench.sh` from the repository root.
import PackageDescription

let package = Package(
    name: "dsbridged-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "dsbridged", path: ".."),
        // Without the trait list the default traits pull a package that is not available offline.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Fixtures, the echo interface and a socket-less driver, shared by the benchmarks and
        // the profiling executable.
        .target(
            name: "CoreWorkload",
            dependencies: [.product(name: "DSBridge", package: "dsbridged")]
        ),
        // Strong retain and release counts through the Swift runtime's instrumentation hooks,
        // with a fix for the Swift 6.3 Linux retain hook that crashes ordo-one/benchmark's own
        // ARC metrics (RefCountProbe.c says how).
        .target(name: "RefCountProbe", linkerSettings: [.linkedLibrary("dl")]),
        // Runs one workload N times without measuring, for `valgrind --tool=callgrind`.
        .executableTarget(
            name: "core-profile",
            dependencies: ["CoreWorkload", .product(name: "DSBridge", package: "dsbridged")]
        ),
        .executableTarget(
            name: "CoreBenchmarks",
            dependencies: [
                "CoreWorkload",
                "RefCountProbe",
                .product(name: "DSBridge", package: "dsbridged"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/CoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.2
// SPDX-License-Identifier: MIT
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "dsbridged",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "DSBridge", targets: ["DSBridge"]),
        .library(name: "DSBridgeServer", targets: ["DSBridgeServer"]),
        .library(name: "DSBridgeCluster", targets: ["DSBridgeCluster"]),
        .library(name: "DSBridgeTracing", targets: ["DSBridgeTracing"]),
        .executable(name: "dsbridged", targets: ["dsbridged"]),
    ],
    // Lower bounds, not exact pins: an app depending on DSBridge / DSBridgeServer resolves
    // these together with its own dependencies (swift-syntax: any of the 600-603 majors the
    // macro builds with; the versions below are the ones tested).
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"604.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // OTLP/HTTP only: the gRPC exporter's dependencies are not built.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibWebSockets",
            path: "Sources/CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev", "libwebsockets-evlib-uv", "libuv1-dev"])]
        ),
        // hiredis 0.14 (Debian 12's libhiredis-dev, scripts/install-deps.sh). No `pkgConfig:`
        // here: hiredis.pc's cflags carry -D_FILE_OFFSET_BITS=64, which SwiftPM drops with a
        // "prohibited flag" warning on every build; the headers are in /usr/include/hiredis and
        // the module map links the library, so nothing else from pkg-config is needed.
        .systemLibrary(
            name: "CHiredis",
            path: "Sources/CHiredis",
            providers: [.apt(["libhiredis-dev"])]
        ),
        // The one-shot libuv timer of the service thread's loop and of a bench worker's: its
        // own target so that the bench depends on no other module of the daemon.
        .target(name: "UVLoopTimer", dependencies: ["CLibWebSockets"]),
        .macro(
            name: "DSBridgeMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        .target(
            name: "DSBridge",
            dependencies: [
                "DSBridgeMacros",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .target(
            name: "DSBridgeServer",
            dependencies: [
                "DSBridge",
                "CLibWebSockets",
                "UVLoopTimer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The admin web page (AdminUIAssets), compiled into the binary: the daemon is
            // installed alone, with no resource bundle beside it. Its node tests stay out.
            exclude: ["AdminUI/tests"],
            resources: [.embedInCode("AdminUI")]
        ),
        .target(
            name: "DSBridgeRedis",
            dependencies: [
                "CHiredis",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "DSBridgeCluster",
            dependencies: [
                "DSBridge",
                "DSBridgeServer",
                "DSBridgeRedis",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // Spans of the bridge's calls for any swift-distributed-tracing tracer (OpenTelemetry).
        .target(
            name: "DSBridgeTracing",
            dependencies: [
                "DSBridge",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "DSBridgeDemo",
            dependencies: ["DSBridge", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "DSBridgedSettings",
            dependencies: [
                "DSBridge",
                "DSBridgeServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .executableTarget(
            name: "dsbridged",
            dependencies: [
                "DSBridge",
                "DSBridgeServer",
                "DSBridgeDemo",
                "DSBridgedSettings",
                "DSBridgeCluster",
                "DSBridgeTracing",
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "dsbridge-bench",
            dependencies: [
                "CLibWebSockets",
                "UVLoopTimer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        // What more than one test target uses: the seeded random generator.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "DSBridgeTests",
            dependencies: ["DSBridge", "DSBridgeDemo", "TestSupport"]
        ),
        .testTarget(
            name: "DSBridgeClusterTests",
            dependencies: [
                "DSBridge", "DSBridgeServer", "DSBridgeRedis", "DSBridgeCluster", "DSBridgeDemo", "RedisTestServer",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "DSBridgeTracingTests",
            dependencies: [
                "DSBridge", "DSBridgeTracing",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "DSBridgeMacrosTests",
            dependencies: [
                "DSBridgeMacros",
                .product(name: "SwiftSyntaxMacrosTestSupport", package: "swift-syntax"),
            ]
        ),
        .testTarget(
            name: "DSBridgedSettingsTests",
            dependencies: [
                "DSBridgedSettings", "DSBridge", "DSBridgeServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A real redis-server for the tests that need one (not a product).
        .target(name: "RedisTestServer", path: "Tests/RedisTestServer"),
        .testTarget(
            name: "DSBridgeRedisTests",
            dependencies: ["DSBridgeRedis", "RedisTestServer", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "DSBridgeServerTests",
            dependencies: [
                "DSBridge", "DSBridgeServer", "DSBridgeDemo", "TestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The libFuzzer target (Fuzz/): the frame/message decoder, the JSON parser and writer, the
// method resolver, sync-call bodies and the server's message encoder. It is a target of this
// package so that it can use DSBridge's `package` declarations, but it is only in the graph
// when scripts/fuzz.sh builds it (DSBRIDGE_FUZZ=1, in its own scratch path Fuzz/.build with
// the instrumentation flags): `swift build` / `swift test` and packages depending on this one
// never see it, nor its unsafe flags.
//
// Why the flags are split (do not "simplify" to `-Xswiftc -sanitize=fuzzer,address`):
// `-Xswiftc` reaches every swiftc invocation, the host tools included, so with
// `-sanitize=fuzzer` the macro plugin executable (DSBridgeMacros-tool) is linked with
// libFuzzer's `main`, which needs `LLVMFuzzerTestOneInput`: an undefined symbol, which ld.gold
// then reports as "internal error in format_file_lineno". So scripts/fuzz.sh instruments every
// module with `-sanitize=address` plus the coverage that `-sanitize=fuzzer` would add (the
// weak hooks of the ASan runtime satisfy it in the host tools), and only this executable, a
// root-package target where unsafe flags are allowed, links the libFuzzer runtime. It links
// with lld: gold crashes instead of naming an undefined symbol, and floods the log with
// warnings about ASan's local symbols.
if Context.environment["DSBRIDGE_FUZZ"] == "1" {
    package.targets.append(
        .executableTarget(
            name: "dsbridge-fuzz",
            // DSBridgeServer: the WebSocket frame reader lives with the connection code.
            dependencies: ["DSBridge", "DSBridgeServer"],
            path: "Fuzz/Sources/dsbridge-fuzz",
            swiftSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])],
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])]
        )
    )
}

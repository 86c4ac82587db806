// swift-tools-version: 6.2
// SPDX-License-Identifier: MIT
// libFuzzer target for the frame/message decoder, the JSON parser and writer, the method
// resolver, sync-call bodies and the server's message encoder, kept out of the main build
// graph. Build and run it with scripts/fuzz.sh, which also passes the instrumentation flags.
//
// Why the flags are split (do not "simplify" to `-Xswiftc -sanitize=fuzzer,address`):
// `-Xswiftc` reaches every swiftc invocation, the host tools included, so with
// `-sanitize=fuzzer` the macro plugin executable of the main package (DSBridgeMacros-tool)
// is linked with libFuzzer's `main`, which needs `LLVMFuzzerTestOneInput`: an undefined
// symbol, which ld.gold then reports as "internal error in format_file_lineno". So
// scripts/fuzz.sh instruments every module with `-sanitize=address` plus the coverage that
// `-sanitize=fuzzer` would add (the weak hooks of the ASan runtime satisfy it in the host
// tools), and only this executable, a root-package target where unsafe flags are allowed,
// links the libFuzzer runtime. It links with lld: gold crashes instead of naming an
// undefined symbol, and floods the log with warnings about ASan's local symbols.
import PackageDescription

let package = Package(
    name: "dsbridge-fuzz",
    dependencies: [.package(name: "dsbridged", path: "..")],
    targets: [
        .executableTarget(
            name: "dsbridge-fuzz",
            dependencies: [.product(name: "DSBridge", package: "dsbridged")],
            swiftSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])],
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])]
        )
    ],
    swiftLanguageModes: [.v6]
)

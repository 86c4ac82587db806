// SPDX-License-Identifier: MIT
// Runs one workload many times without measuring anything itself, so an instruction
// counter sees only the workload:
//
//     valgrind --tool=callgrind .build/release/core-profile dispatch/bridge\ echo.syn,\ object\ arg 10000
//
// `core-profile --list` prints the workload ids. The preparation and a first warm-up step
// run before the loop; subtract a run with iterations 0 to get the per-step figure.
import CoreWorkload
import Foundation

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--list" || arguments.isEmpty {
    for w in Workloads.all { print(w.id) }
    exit(arguments.isEmpty ? 2 : 0)
}
let id = arguments[arguments.startIndex]
let iterations = arguments.count > 1 ? Int(arguments[arguments.startIndex + 1]) ?? 10_000 : 10_000
guard let workload = Workloads.all.first(where: { $0.id == id }) else {
    print("unknown workload \(id); --list shows them")
    exit(2)
}
switch workload.prepare() {
case .sync(let step):
    step()
    for _ in 0..<iterations { step() }
case .async(let step):
    await step()
    for _ in 0..<iterations { await step() }
}
print("\(id): \(iterations) iterations")

// SPDX-License-Identifier: MIT
import Foundation

/// Starts a thread of its own running `body`, named `name` for Foundation and `kernelName`
/// for the kernel. Foundation's `name` stays in the process on Linux; the kernel's name (15
/// bytes at most) is what `top -H` and `/proc/PID/task/*/comm` show. (Glibc's
/// `pthread_setname_np` is not visible to Swift; `/proc/thread-self` is.)
func startNamedThread(_ name: String, kernelName: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
        if let comm = fopen("/proc/thread-self/comm", "w") {
            fputs(kernelName, comm)
            fclose(comm)
        }
        body()
    }
    thread.name = name
    thread.start()
}

// SPDX-License-Identifier: MIT
import Foundation
import Synchronization
import Testing

@testable import DSBridgeServer

#if canImport(Glibc)
import Glibc
#endif

/// `JoinableThread`: `join()` returns once the thread has exited, what runs at its exit
/// (thread-local destructors, as OpenSSL's per-thread cleanup) included.
@Suite("JoinableThread: joined means exited")
struct JoinableThreadTests {
    /// Set by the destructor of the thread-local value below, after a pause.
    private static let destructorRan = Atomic<Bool>(false)

    @Test("join() returns only after the thread's thread-local destructors ran")
    func joinWaitsForExit() throws {
        var key = pthread_key_t()
        #expect(
            pthread_key_create(&key) { _ in
                // Slower than the body: a join that returned when the work ended would miss it.
                usleep(100_000)
                JoinableThreadTests.destructorRan.store(true, ordering: .releasing)
            } == 0)
        defer { pthread_key_delete(key) }
        let keyValue = key
        let bodyRan = Atomic<Bool>(false)
        let thread = try JoinableThread(stackSize: 1 << 20) {
            pthread_setspecific(keyValue, UnsafeRawPointer(bitPattern: 1))
            bodyRan.store(true, ordering: .releasing)
        }
        thread.join()
        let ran = bodyRan.load(ordering: .acquiring)
        let destructed = Self.destructorRan.load(ordering: .acquiring)
        #expect(ran)
        #expect(destructed, "join() returned before the thread's exit finished")
        thread.join()  // a second join returns at once
    }

    @Test("a stack size the system refuses is a start error, not a crash")
    func refusedStack() {
        #expect(throws: JoinableThreadError.self) {
            _ = try JoinableThread(stackSize: 1) {}
        }
    }
}

/// The threads of this process named `name` (`/proc/self/task/*/comm`).
func threadsNamed(_ name: String) -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.count { task in
        (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) == name
    }
}

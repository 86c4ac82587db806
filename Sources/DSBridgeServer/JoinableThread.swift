// SPDX-License-Identifier: MIT
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Why a thread could not be started.
enum JoinableThreadError: Error, CustomStringConvertible {
    /// `pthread_create` (or setting up its attributes) failed with this error number.
    case create(Int32)

    var description: String {
        switch self {
        case .create(let code): "could not start a thread: \(String(cString: strerror(code))) (errno \(code))"
        }
    }
}

/// A thread whose end can be waited for: ``join()`` returns once the thread has *exited*,
/// its thread-local destructors included, not merely once its work said it was done.
///
/// Foundation's `Thread` cannot be joined. The service thread used one, and the daemon's
/// main thread could return from `main` (running `exit`'s handlers, among them OpenSSL's
/// `OPENSSL_cleanup`, which frees its global locks) while the service thread, its work done,
/// was still running OpenSSL's per-thread destructor, which takes one of those locks: a crash
/// at shutdown (SIGSEGV in `pthread_rwlock_rdlock`) about once in a few hundred stops.
final class JoinableThread: Sendable {
    /// The thread, until joined.
    private let handle = Mutex<pthread_t?>(nil)

    /// Starts `body` on a new thread with a stack of `stackSize` bytes.
    init(stackSize: Int, body: @escaping @Sendable () -> Void) throws(JoinableThreadError) {
        var attributes = pthread_attr_t()
        var status = pthread_attr_init(&attributes)
        guard status == 0 else { throw .create(status) }
        defer { pthread_attr_destroy(&attributes) }
        status = pthread_attr_setstacksize(&attributes, stackSize)
        guard status == 0 else { throw .create(status) }
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        status = pthread_create(
            &thread, &attributes,
            { argument in
                guard let argument else { return nil }
                Unmanaged<Body>.fromOpaque(argument).takeRetainedValue().run()
                return nil
            }, box)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            throw .create(status)
        }
        handle.withLock { $0 = thread }
    }

    /// Blocks until the thread has exited (at once if it was joined before). Callers after
    /// the first wait for the first one's join to finish.
    func join() {
        handle.withLock { handle in
            guard let thread = handle else { return }
            pthread_join(thread, nil)
            handle = nil
        }
    }

    /// The closure a thread runs, passed to it through `pthread_create`'s argument.
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}

// SPDX-License-Identifier: MIT
import CLibWebSockets
import Synchronization

/// The stages of a run, in order. The runner moves the phase forward; workers follow.
enum RunPhase: Int, Sendable, Comparable {
    /// Sessions are being opened (storms: cycles run, nothing is counted).
    case opening = 0
    /// Load runs, nothing is counted.
    case warmup = 1
    /// Load runs and is counted.
    case measure = 2
    /// `idle`: every held session makes one call.
    case check = 3
    /// Workers end their sessions and stop.
    case stop = 4

    static func < (a: RunPhase, b: RunPhase) -> Bool { a.rawValue < b.rawValue }
}

/// A client context pointer that may cross threads.
///
/// `@unchecked Sendable` is safe because the only use off the worker's own thread is
/// `lws_cancel_service`, which libwebsockets documents as thread-safe, and it is called
/// only under ``RunControl``'s lock while the context is registered (the worker removes it
/// under that lock before destroying the context).
struct ClientContextRef: @unchecked Sendable {
    let raw: OpaquePointer
}

/// Figures a worker publishes for the progress line (atomics, read by the runner).
final class LiveFigures: Sendable {
    /// Operations completed since the start (any phase).
    let operations = Atomic<Int>(0)
    /// Errors since the start.
    let errors = Atomic<Int>(0)
    /// Sessions (connections) open and ready.
    let ready = Atomic<Int>(0)
    /// `idle`: sessions that answered the check call.
    let checked = Atomic<Int>(0)
    /// The worker has stopped and published its stats.
    let finished = Atomic<Bool>(false)
}

/// Shared between the runner and its workers: the phase, wake-ups, live figures and the
/// final statistics.
final class RunControl: Sendable {
    private let phaseValue = Atomic<Int>(RunPhase.opening.rawValue)
    /// When the measurement started (monotonic ns), set before the phase becomes `measure`.
    let measureStart = Atomic<UInt64>(UInt64.max)
    let figures: [LiveFigures]
    private let contexts = Mutex<[Int: ClientContextRef]>([:])
    private let results = Mutex<[Int: WorkerStats]>([:])

    init(workers: Int) {
        figures = (0..<workers).map { _ in LiveFigures() }
    }

    var phase: RunPhase { RunPhase(rawValue: phaseValue.load(ordering: .acquiring)) ?? .stop }

    /// Moves to `phase` and wakes every worker (runner thread).
    func enter(_ phase: RunPhase) {
        if phase == .measure { measureStart.store(monotonicNanos(), ordering: .releasing) }
        phaseValue.store(phase.rawValue, ordering: .releasing)
        wakeAll()
    }

    /// Wakes every worker's service loop (any thread).
    func wakeAll() {
        contexts.withLock { all in
            for ref in all.values { lws_cancel_service(ref.raw) }
        }
    }

    /// Worker `index` made its context (its thread).
    func register(_ index: Int, _ context: ClientContextRef) {
        contexts.withLock { $0[index] = context }
    }

    /// Worker `index` is about to destroy its context (its thread).
    func unregister(_ index: Int) {
        _ = contexts.withLock { $0.removeValue(forKey: index) }
    }

    /// Worker `index` finished with `stats` (its thread).
    func publish(_ index: Int, _ stats: WorkerStats) {
        results.withLock { $0[index] = stats }
        figures[index].finished.store(true, ordering: .releasing)
    }

    /// Every worker's stats, merged (runner thread, after all finished).
    func mergedStats() -> WorkerStats {
        results.withLock { all in
            var merged = WorkerStats()
            for stats in all.values { merged.merge(stats) }
            return merged
        }
    }

    /// The sum over workers of one live figure.
    func sum(_ read: (LiveFigures) -> Int) -> Int {
        figures.reduce(0) { $0 + read($1) }
    }

    var allFinished: Bool { figures.allSatisfy { $0.finished.load(ordering: .acquiring) } }
}

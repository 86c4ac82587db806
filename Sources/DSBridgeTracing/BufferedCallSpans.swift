// SPDX-License-Identifier: MIT
import DSBridge
import ServiceLifecycle
import Synchronization

/// Keeps the calls' hot path clear of the tracer: a call's span is only recorded here (one
/// lock, one append), and a service hands the records to the tracer (`inner`) in batches,
/// every `intervalMs`. A tracer such as swift-otel's wakes its processors for each span it
/// starts and ends; fed one batch at a time from one task it does that work once per batch
/// rather than once per call, and never on the network thread.
///
/// At most `capacity` records wait; more are dropped and counted (``dropped``), as a full
/// span queue of an OpenTelemetry SDK drops them. Run it as a service in the daemon's group,
/// before the tracer's own service stops: its graceful shutdown hands over what is left.
public final class BufferedCallSpans: CallSpanSink, Service {
    private struct Pending {
        var pageCalls: [PageCallSpan] = []
        var nativeCalls: [NativeCallSpan] = []
        var dropped = 0
    }

    private let inner: any CallSpanSink
    private let capacity: Int
    private let intervalMs: Int
    private let pending = Mutex(Pending())

    /// - Parameters:
    ///   - inner: receives the records (e.g. ``TracingCallSpans``).
    ///   - capacity: records kept at most between two hand-overs.
    ///   - intervalMs: milliseconds between hand-overs.
    public init(inner: any CallSpanSink, capacity: Int = 65_536, intervalMs: Int = 50) {
        self.inner = inner
        self.capacity = capacity
        self.intervalMs = intervalMs
    }

    /// Records dropped because `capacity` were waiting.
    public var dropped: Int { pending.withLock { $0.dropped } }

    public func pageCallEnded(_ span: PageCallSpan) {
        pending.withLock { p in
            if p.pageCalls.count + p.nativeCalls.count < capacity { p.pageCalls.append(span) } else { p.dropped += 1 }
        }
    }

    public func nativeCallEnded(_ span: NativeCallSpan) {
        pending.withLock { p in
            if p.pageCalls.count + p.nativeCalls.count < capacity { p.nativeCalls.append(span) } else { p.dropped += 1 }
        }
    }

    /// Hands every waiting record to `inner` now.
    public func flush() {
        let batch = pending.withLock { p -> ([PageCallSpan], [NativeCallSpan]) in
            defer {
                p.pageCalls.removeAll(keepingCapacity: true)
                p.nativeCalls.removeAll(keepingCapacity: true)
            }
            return (p.pageCalls, p.nativeCalls)
        }
        for span in batch.0 { inner.pageCallEnded(span) }
        for span in batch.1 { inner.nativeCallEnded(span) }
    }

    /// Hands the records over every `intervalMs` until a graceful shutdown, then once more.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(self.intervalMs))
                self.flush()
            }
        }
        flush()
    }
}

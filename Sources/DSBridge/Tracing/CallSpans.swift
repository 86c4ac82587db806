// SPDX-License-Identifier: MIT
import Foundation

/// Where the bridge reports each finished call as a span (OpenTelemetry through
/// `DSBridgeTracing`). With none set on the ``Bridge`` nothing is measured or kept for it.
public protocol CallSpanSink: Sendable {
    /// A page → native call ended: answered, refused, or (async methods) finally completed.
    func pageCallEnded(_ span: PageCallSpan)
    /// A native → page call (`invoke`) ended.
    func nativeCallEnded(_ span: NativeCallSpan)
}

/// A finished page → native call.
public struct PageCallSpan: Sendable, Equatable {
    /// How the call reached the daemon.
    public enum Transport: String, Sendable { case socket, http }

    public var session: String
    /// The method as the page named it.
    public var method: String
    /// Whether the method is registered (a span's name must not carry a page's free text).
    public var methodKnown: Bool
    /// `ok`, or the error kind (`methodNotFound`, `badArgument`, `failed`, `timeout`,
    /// `overloaded`, `cancelled`).
    public var outcome: String
    public var transport: Transport
    /// An async method: the span lasts until its final completion.
    public var asynchronous: Bool
    /// Wall-clock nanoseconds since 1970.
    public var startNanoseconds: UInt64
    public var endNanoseconds: UInt64
    /// Bytes of the call's `arg` as sent (0 when omitted).
    public var requestBytes: Int
    /// Bytes of the JSON of its result (an async method: of its final value); `nil` when it
    /// failed.
    public var responseBytes: Int?
    /// The page's W3C `traceparent`, when it sent one (PROTOCOL.md 2.2).
    public var traceparent: String?

    public init(
        session: String, method: String, methodKnown: Bool, outcome: String, transport: Transport, asynchronous: Bool,
        startNanoseconds: UInt64, endNanoseconds: UInt64, requestBytes: Int, responseBytes: Int? = nil, traceparent: String?
    ) {
        self.session = session
        self.method = method
        self.methodKnown = methodKnown
        self.outcome = outcome
        self.transport = transport
        self.asynchronous = asynchronous
        self.startNanoseconds = startNanoseconds
        self.endNanoseconds = endNanoseconds
        self.requestBytes = requestBytes
        self.responseBytes = responseBytes
        self.traceparent = traceparent
    }
}

/// A finished native → page call.
public struct NativeCallSpan: Sendable, Equatable {
    public var session: String
    public var method: String
    /// As in the metrics: `completed`, `failed` (the page answered with an error),
    /// `timeout`, `sessionEnded`, `tooLarge`.
    public var outcome: String
    public var startNanoseconds: UInt64
    public var endNanoseconds: UInt64
    /// Bytes of the `invoke` frame's arguments.
    public var requestBytes: Int
    /// Bytes of the JSON of the page's final value; `nil` when the call failed.
    public var responseBytes: Int?
    /// The caller's W3C `traceparent` (an admin call's header), when it gave one.
    public var traceparent: String?

    public init(
        session: String, method: String, outcome: String, startNanoseconds: UInt64, endNanoseconds: UInt64, requestBytes: Int,
        responseBytes: Int? = nil, traceparent: String? = nil
    ) {
        self.session = session
        self.method = method
        self.outcome = outcome
        self.startNanoseconds = startNanoseconds
        self.endNanoseconds = endNanoseconds
        self.requestBytes = requestBytes
        self.responseBytes = responseBytes
        self.traceparent = traceparent
    }
}

/// Wall-clock nanoseconds since 1970 (for spans only: not monotonic).
func wallClockNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// A page → native call whose span is still open (kept only while a sink is set).
///
/// A class: a call carries an optional reference (nil while tracing is off), which costs
/// nothing to pass and drop, where an optional struct of its size was copied and destroyed
/// through value witnesses on every call.
final class OpenPageSpan: Sendable {
    let session: String
    let method: String
    let methodKnown: Bool
    let transport: PageCallSpan.Transport
    let startNanoseconds: UInt64
    let requestBytes: Int
    let trace: TraceContext?

    init(
        session: String, method: String, methodKnown: Bool, transport: PageCallSpan.Transport, startNanoseconds: UInt64,
        requestBytes: Int, trace: TraceContext?
    ) {
        self.session = session
        self.method = method
        self.methodKnown = methodKnown
        self.transport = transport
        self.startNanoseconds = startNanoseconds
        self.requestBytes = requestBytes
        self.trace = trace
    }

    /// The span as ended now; `methodKnown`: what the call found out (else as opened).
    func ended(outcome: String, asynchronous: Bool, result: JSONValue? = nil, methodKnown: Bool? = nil) -> PageCallSpan {
        PageCallSpan(
            session: session, method: method, methodKnown: methodKnown ?? self.methodKnown, outcome: outcome, transport: transport,
            asynchronous: asynchronous, startNanoseconds: startNanoseconds, endNanoseconds: wallClockNanoseconds(),
            requestBytes: requestBytes, responseBytes: result.map { JSONWriter.bytes($0).count }, traceparent: trace?.traceparent)
    }
}

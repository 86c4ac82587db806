// SPDX-License-Identifier: MIT
import DSBridge
import Tracing

/// Makes spans of the bridge's calls with a swift-distributed-tracing tracer (the daemon's is
/// OpenTelemetry's, exporting over OTLP; `--otel-endpoint`). Pass it to ``Bridge`` as
/// `callSpans`.
///
/// - A page → native call: span `call METHOD` (kind server) from the call's arrival to its
///   answer (an async method: to its final completion), child of the page's `traceparent`
///   when the page sent one (PROTOCOL.md 2.2 and 4).
/// - A native → page call: span `invoke METHOD` (kind client) until the page's final answer,
///   child of the caller's `traceparent` (an admin call's header) when it gave one.
///
/// Attributes: `rpc.system` (`dsbridge`), `rpc.method`, `dsbridge.session`,
/// `dsbridge.outcome`, `dsbridge.request.bytes`, `dsbridge.response.bytes` (when it ended
/// with a value); page calls also `dsbridge.transport`
/// (`socket`, `http`) and `dsbridge.async`. A call that did not end well has status error.
public struct TracingCallSpans<T: Tracer>: CallSpanSink {
    let tracer: T

    public init(tracer: T) {
        self.tracer = tracer
    }

    /// Span names never carry what a page chose freely: a name no interface has is `unknown`
    /// (its text stays in `dsbridge.method.requested`, at most 200 characters).
    public func pageCallEnded(_ call: PageCallSpan) {
        let method = call.methodKnown ? call.method : "unknown"
        let span = tracer.startSpan(
            "call \(method)", context: context(of: call.traceparent), ofKind: .server, at: WallClockInstant(call.startNanoseconds))
        // Not sampled (the page's flags, or OTEL_TRACES_SAMPLER): nothing more to fill in.
        guard span.isRecording else { return span.end(at: WallClockInstant(max(call.endNanoseconds, call.startNanoseconds))) }
        span.attributes["rpc.system"] = "dsbridge"
        span.attributes["rpc.method"] = method
        if !call.methodKnown { span.attributes["dsbridge.method.requested"] = String(call.method.prefix(200)) }
        span.attributes["dsbridge.session"] = call.session
        span.attributes["dsbridge.outcome"] = call.outcome
        span.attributes["dsbridge.transport"] = call.transport.rawValue
        span.attributes["dsbridge.async"] = call.asynchronous
        span.attributes["dsbridge.request.bytes"] = call.requestBytes
        if let bytes = call.responseBytes { span.attributes["dsbridge.response.bytes"] = bytes }
        if call.outcome != "ok" { span.setStatus(SpanStatus(code: .error, message: call.outcome)) }
        span.end(at: WallClockInstant(max(call.endNanoseconds, call.startNanoseconds)))
    }

    /// The parent of a span: the caller's trace context, or none (a new trace).
    private func context(of traceparent: String?) -> InstrumentationContext {
        var context = InstrumentationContext.topLevel
        if let traceparent { tracer.extract(["traceparent": traceparent], into: &context, using: HeaderExtractor()) }
        return context
    }

    public func nativeCallEnded(_ call: NativeCallSpan) {
        let span = tracer.startSpan(
            "invoke \(call.method)", context: context(of: call.traceparent), ofKind: .client,
            at: WallClockInstant(call.startNanoseconds))
        guard span.isRecording else { return span.end(at: WallClockInstant(max(call.endNanoseconds, call.startNanoseconds))) }
        span.attributes["rpc.system"] = "dsbridge"
        span.attributes["rpc.method"] = call.method
        span.attributes["dsbridge.session"] = call.session
        span.attributes["dsbridge.outcome"] = call.outcome
        span.attributes["dsbridge.request.bytes"] = call.requestBytes
        if let bytes = call.responseBytes { span.attributes["dsbridge.response.bytes"] = bytes }
        if call.outcome != "completed" { span.setStatus(SpanStatus(code: .error, message: call.outcome)) }
        span.end(at: WallClockInstant(max(call.endNanoseconds, call.startNanoseconds)))
    }
}

/// A span's start or end as the bridge measured it (wall clock).
struct WallClockInstant: TracerInstant {
    let nanosecondsSinceEpoch: UInt64

    init(_ nanoseconds: UInt64) {
        nanosecondsSinceEpoch = nanoseconds
    }

    static func < (a: Self, b: Self) -> Bool { a.nanosecondsSinceEpoch < b.nanosecondsSinceEpoch }
}

/// Reads a trace context from header-like pairs (`traceparent`, `tracestate`).
struct HeaderExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? {
        carrier[key]
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeTracing
import InMemoryTracing
import Synchronization
import Testing
import Tracing

/// The spans ``TracingCallSpans`` makes of the bridge's calls (issue 17, point 2), recorded by
/// swift-distributed-tracing's in-memory tracer. (The OTLP export itself: scripts/otel_test.py.)
@Suite("Spans of calls")
struct TracingCallSpansTests {
    static let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    func pageCall(method: String = "echo.syn", known: Bool = true, outcome: String = "ok", traceparent: String? = nil) -> PageCallSpan {
        PageCallSpan(
            session: "abc", method: method, methodKnown: known, outcome: outcome, transport: .socket, asynchronous: false,
            startNanoseconds: 1_700_000_000_000_000_000, endNanoseconds: 1_700_000_000_000_250_000, requestBytes: 12,
            responseBytes: outcome == "ok" ? 7 : nil, traceparent: traceparent)
    }

    @Test("a page call: a server span named after its method, with its times and attributes")
    func pageCallSpan() throws {
        let tracer = InMemoryTracer()
        TracingCallSpans(tracer: tracer).pageCallEnded(pageCall())
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.operationName == "call echo.syn")
        #expect(span.kind == .server)
        #expect(span.startInstant.nanosecondsSinceEpoch == 1_700_000_000_000_000_000)
        #expect(span.endInstant.nanosecondsSinceEpoch == 1_700_000_000_000_250_000)
        #expect(span.attributes["rpc.system"]?.toSpanAttribute() == "dsbridge")
        #expect(span.attributes["rpc.method"]?.toSpanAttribute() == "echo.syn")
        #expect(span.attributes["dsbridge.session"]?.toSpanAttribute() == "abc")
        #expect(span.attributes["dsbridge.outcome"]?.toSpanAttribute() == "ok")
        #expect(span.attributes["dsbridge.transport"]?.toSpanAttribute() == "socket")
        #expect(span.attributes["dsbridge.async"]?.toSpanAttribute() == false)
        #expect(span.attributes["dsbridge.request.bytes"]?.toSpanAttribute() == 12)
        #expect(span.attributes["dsbridge.response.bytes"]?.toSpanAttribute() == 7)
        #expect(span.status == nil)
        #expect(tracer.performedContextExtractions.isEmpty, "no traceparent: a root span")
    }

    @Test("the page's traceparent is extracted as the span's parent context")
    func traceparent() throws {
        let tracer = InMemoryTracer(recordExtractions: true)
        TracingCallSpans(tracer: tracer).pageCallEnded(pageCall(traceparent: Self.traceparent))
        let extraction = try #require(tracer.performedContextExtractions.first)
        #expect((extraction.carrier as? [String: String]) == ["traceparent": Self.traceparent])
    }

    @Test("an invoke with its caller's traceparent gets it as parent context")
    func nativeTraceparent() throws {
        let tracer = InMemoryTracer(recordExtractions: true)
        TracingCallSpans(tracer: tracer).nativeCallEnded(
            NativeCallSpan(
                session: "s", method: "f", outcome: "completed", startNanoseconds: 1, endNanoseconds: 2, requestBytes: 2,
                traceparent: Self.traceparent))
        let extraction = try #require(tracer.performedContextExtractions.first)
        #expect((extraction.carrier as? [String: String]) == ["traceparent": Self.traceparent])
    }

    @Test("a failed call has status error; a method no interface has is named unknown, its text kept as an attribute")
    func failures() throws {
        let tracer = InMemoryTracer()
        let spans = TracingCallSpans(tracer: tracer)
        spans.pageCallEnded(pageCall(method: "<img src=x>", known: false, outcome: "methodNotFound"))
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.operationName == "call unknown")
        #expect(span.attributes["rpc.method"]?.toSpanAttribute() == "unknown")
        #expect(span.attributes["dsbridge.method.requested"]?.toSpanAttribute() == "<img src=x>")
        #expect(span.status?.code == .error)
        #expect(span.status?.message == "methodNotFound")
        #expect(span.attributes["dsbridge.response.bytes"] == nil)
    }

    @Test("a native call: a client span named after the page's method, error unless completed")
    func nativeCall() throws {
        let tracer = InMemoryTracer()
        let spans = TracingCallSpans(tracer: tracer)
        for outcome in ["completed", "timeout"] {
            spans.nativeCallEnded(
                NativeCallSpan(session: "abc", method: "addValue", outcome: outcome, startNanoseconds: 10, endNanoseconds: 20, requestBytes: 5))
        }
        let finished = tracer.finishedSpans
        #expect(finished.map(\.operationName) == ["invoke addValue", "invoke addValue"])
        #expect(finished.map(\.kind) == [.client, .client])
        #expect(finished[0].status == nil)
        #expect(finished[1].status?.code == .error)
        #expect(finished[1].attributes["dsbridge.outcome"]?.toSpanAttribute() == "timeout")
    }
}

@Suite("OTLP endpoint")
struct OTLPEndpointTests {
    @Test(
        "a URL without a path gets /v1/traces; one with a path is kept",
        arguments: [
            ("http://127.0.0.1:4318", "http://127.0.0.1:4318/v1/traces"),
            ("http://127.0.0.1:4318/", "http://127.0.0.1:4318/v1/traces"),
            ("https://otel.example.com", "https://otel.example.com/v1/traces"),
            ("http://collector:4318/custom/traces", "http://collector:4318/custom/traces"),
        ])
    func tracesURL(_ given: String, _ expected: String) {
        #expect(OTLPEndpoint.tracesURL(given) == expected)
    }
}

@Suite("Buffered call spans")
struct BufferedCallSpansTests {
    final class Recorder: CallSpanSink {
        let methods = Mutex<[String]>([])
        func pageCallEnded(_ span: PageCallSpan) { methods.withLock { $0.append(span.method) } }
        func nativeCallEnded(_ span: NativeCallSpan) { methods.withLock { $0.append("invoke " + span.method) } }
        var seen: [String] { methods.withLock { $0 } }
    }

    func pageCall(_ method: String) -> PageCallSpan {
        PageCallSpan(
            session: "s", method: method, methodKnown: true, outcome: "ok", transport: .socket, asynchronous: false,
            startNanoseconds: 1, endNanoseconds: 2, requestBytes: 0, traceparent: nil)
    }

    @Test("records wait until a hand-over; beyond the capacity they are dropped and counted")
    func capacity() {
        let inner = Recorder()
        let buffered = BufferedCallSpans(inner: inner, capacity: 3)
        for m in ["a", "b", "c", "d"] { buffered.pageCallEnded(pageCall(m)) }
        #expect(inner.seen.isEmpty)
        #expect(buffered.dropped == 1)
        buffered.flush()
        #expect(inner.seen == ["a", "b", "c"])
        buffered.nativeCallEnded(NativeCallSpan(session: "s", method: "f", outcome: "completed", startNanoseconds: 1, endNanoseconds: 2, requestBytes: 0))
        buffered.flush()
        #expect(inner.seen == ["a", "b", "c", "invoke f"])
    }

    @Test("as a service it hands records over every interval, and what is left when it stops")
    func service() async throws {
        let inner = Recorder()
        let buffered = BufferedCallSpans(inner: inner, intervalMs: 10)
        let task = Task { try await buffered.run() }
        buffered.pageCallEnded(pageCall("first"))
        let deadline = ContinuousClock.now + .seconds(5)
        while inner.seen.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(inner.seen == ["first"])
        buffered.pageCallEnded(pageCall("last"))
        task.cancel()
        try await task.value
        #expect(inner.seen == ["first", "last"])
    }
}

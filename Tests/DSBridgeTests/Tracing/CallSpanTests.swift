// SPDX-License-Identifier: MIT
import DSBridge
import Synchronization
import Testing

/// What the bridge reports to a ``CallSpanSink`` (tracing on; issue 17, point 2): one span per
/// page → native call when it ends, one per native → page call, with the page's
/// `traceparent` (PROTOCOL.md 2.2 and 4).
@Suite("Call spans")
struct CallSpanTests {
    final class RecordingSink: CallSpanSink {
        let pageCalls = Mutex<[PageCallSpan]>([])
        let nativeCalls = Mutex<[NativeCallSpan]>([])
        func pageCallEnded(_ span: PageCallSpan) { pageCalls.withLock { $0.append(span) } }
        func nativeCallEnded(_ span: NativeCallSpan) { nativeCalls.withLock { $0.append(span) } }
        var pages: [PageCallSpan] { pageCalls.withLock { $0 } }
        var natives: [NativeCallSpan] { nativeCalls.withLock { $0 } }
    }

    static let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test("a socket call's span: method, session, outcome, transport, size and the page's traceparent")
    func socketCall() async throws {
        let sink = RecordingSink()
        let h = BridgeHarness(callSpans: sink)
        let welcome = try await h.hello()
        h.send(["t": "call", "id": 1, "method": "p.value", "arg": ["data": "hello"], "traceparent": .string(Self.traceparent)])
        _ = try await h.messages(1)
        let span = try #require(sink.pages.first)
        #expect(span.session == welcome["session"]?.stringValue)
        #expect(span.method == "p.value" && span.methodKnown && span.outcome == "ok")
        #expect(span.transport == .socket && !span.asynchronous)
        #expect(span.requestBytes == #"{"data":"hello"}"#.utf8.count)
        #expect(span.responseBytes == #""hello""#.utf8.count)
        #expect(span.traceparent == Self.traceparent)
        #expect(span.startNanoseconds > 0 && span.endNanoseconds >= span.startNanoseconds)
    }

    @Test("refused calls have spans too; a name no interface has is marked unknown; a traceparent that is not a string is ignored")
    func refusedCalls() async throws {
        let sink = RecordingSink()
        let h = BridgeHarness(callSpans: sink)
        _ = try await h.hello()
        h.send(["t": "call", "id": 1, "method": "<img>", "arg": ["data": 1], "traceparent": 42])
        h.call(2, "p.int", "x")
        h.call(3, "p.throws", nil)
        _ = try await h.messages(3)
        let spans = sink.pages
        #expect(spans.map(\.outcome) == ["methodNotFound", "badArgument", "failed"])
        #expect(spans.map(\.methodKnown) == [false, true, true])
        #expect(spans[0].traceparent == nil)
        #expect(spans.map(\.responseBytes) == [nil, nil, nil], "failed calls have no result")
    }

    @Test("an async method's span lasts until its final completion; a cancelled one says so")
    func asyncCalls() async throws {
        let sink = RecordingSink()
        let h = BridgeHarness(callSpans: sink)
        _ = try await h.hello()
        h.call(1, "p.twice", nil, stub: "cb1")
        _ = try await h.messages(3)  // ret, cb 1, cb 2 (final)
        #expect(sink.pages.map(\.outcome) == ["ok"])
        #expect(sink.pages.first?.asynchronous == true)
        #expect(sink.pages.first?.responseBytes == 1, "the final value, 2")
        h.call(2, "p.untilCancelled", nil, stub: "cb2")
        _ = try await h.messages(2)  // ret, cb "started"
        #expect(sink.pages.count == 1, "still running: no span yet")
        h.send(["t": "cancel", "id": 2])
        _ = try await h.messages(1)
        #expect(sink.pages.map(\.outcome) == ["ok", "cancelled"])
        h.call(3, "p.throwsFirst", nil, stub: "cb3")
        _ = try await h.messages(1)
        #expect(sink.pages.last?.outcome == "failed")
    }

    @Test("a sync HTTP call's span says http and carries the traceparent header's value")
    func httpCall() async throws {
        let sink = RecordingSink()
        let h = BridgeHarness(callSpans: sink)
        let welcome = try await h.hello()
        var request = SyncCallRequest(method: "p.value", arg: ["data": 5], after: 0)
        request.trace = TraceContext(traceparent: Self.traceparent)
        let result = await h.bridge.syncCall(token: welcome["token"]?.stringValue ?? "", request: request)
        #expect(result == .success(5))
        let span = try #require(sink.pages.first)
        #expect(span.transport == .http && span.traceparent == Self.traceparent && span.outcome == "ok")
    }

    @Test("a native → page call's span ends with the page's final answer or the timeout")
    func nativeCalls() async throws {
        let sink = RecordingSink()
        let clock = ManualExecutor()
        let h = BridgeHarness(executor: clock, callSpans: sink)
        let welcome = try await h.hello()
        h.call(1, "_dsb.dsinit", nil)
        _ = try await h.messages(1)
        let session = try #require(h.bridge.session(token: welcome["token"]?.stringValue ?? ""))
        session.callJavaScript("addValue", args: [3, 4], trace: TraceContext(traceparent: Self.traceparent)) { _ in }
        let invoke = try await h.messages(1)[0]
        #expect(sink.natives.isEmpty)
        h.call(2, "_dsb.returnValue", ["id": invoke["callbackId"] ?? .null, "data": 7, "complete": false])
        _ = try await h.messages(1)
        #expect(sink.natives.isEmpty, "progress does not end it")
        h.call(3, "_dsb.returnValue", ["id": invoke["callbackId"] ?? .null, "data": 7])
        _ = try await h.messages(1)
        #expect(sink.natives.map(\.outcome) == ["completed"])
        #expect(sink.natives.first?.method == "addValue" && sink.natives.first?.requestBytes == 5)
        #expect(sink.natives.first?.responseBytes == 1)
        #expect(sink.natives.first?.traceparent == Self.traceparent, "the caller's trace context")
        session.callJavaScript("never", args: [], timeout: .milliseconds(100)) { _ in }
        _ = try await h.messages(1)
        clock.advance(milliseconds: 100)
        #expect(await h.eventually { sink.natives.count == 2 })
        #expect(sink.natives.last?.outcome == "timeout")
        #expect(sink.natives.last?.responseBytes == nil)
        #expect(sink.natives.last?.traceparent == nil)
    }
}

/// `traceparent` values (W3C Trace Context) as the bridge reads them: valid ones are kept,
/// anything else is ignored.
@Suite("Trace context")
struct TraceContextTests {
    @Test("a valid traceparent is read and written back the same")
    func roundTrip() throws {
        let text = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let context = try #require(TraceContext(traceparent: text))
        #expect(context.traceIDHigh == 0x4bf9_2f35_77b3_4da6 && context.traceIDLow == 0xa3ce_929d_0e0e_4736)
        #expect(context.parentID == 0x00f0_67aa_0ba9_02b7 && context.flags == 1 && context.version == 0)
        #expect(context.traceparent == text)
    }

    @Test(
        "anything else is ignored",
        arguments: [
            "", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",  // no flags
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01",  // upper case
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version ff
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // zero trace id
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // zero parent id
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",  // version 00 with more
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ])
    func invalid(_ text: String) {
        #expect(TraceContext(traceparent: text) == nil)
    }

    @Test("a later version may carry more after a dash")
    func laterVersion() {
        #expect(TraceContext(traceparent: "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future") != nil)
    }

    @Test("a call frame's traceparent is decoded; an invalid or escaped one is ignored and the call still runs")
    func decoded() throws {
        let valid = #"{"t":"call","id":1,"method":"m","traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}"#
        guard case .call(let call)? = try PageFrameDecoder().decode(frame: Array(valid.utf8), helloSeen: true).first else {
            Issue.record("not a call")
            return
        }
        #expect(call.trace?.parentID == 0x00f0_67aa_0ba9_02b7)
        for frame in [
            #"{"t":"call","id":1,"method":"m","traceparent":"nonsense"}"#,
            #"{"t":"call","id":1,"method":"m","traceparent":"\u0030\u0030-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}"#,
            #"{"t":"call","id":1,"method":"m","traceparent":7}"#,
        ] {
            guard case .call(let call)? = try PageFrameDecoder().decode(frame: Array(frame.utf8), helloSeen: true).first else {
                Issue.record("not a call: \(frame)")
                continue
            }
            #expect(call.trace == nil)
        }
    }
}

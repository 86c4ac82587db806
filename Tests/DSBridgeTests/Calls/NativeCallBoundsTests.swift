// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Synchronization
import Testing

/// Bounds of PROTOCOL.md 2.3 and 2.4 around native-initiated calls, too-large answers and
/// sync HTTP calls (issue 13).
@Suite("Native-call and answer bounds")
struct NativeCallBoundsTests {
    private func session(_ h: BridgeHarness) async throws -> BridgeSession {
        let welcome = try await h.hello()
        return try #require(h.bridge.session(token: welcome["token"]?.stringValue ?? ""))
    }

    @Test("a too-large invoke fails at its caller at once while the page is not ready, and uses no callbackId")
    func tooLargeBeforeReady() async throws {
        let h = BridgeHarness { $0.replayMaxBytes = 1000 }
        let s = try await session(h)
        let result = Mutex<NativeCallEvent?>(nil)
        let id = s.callJavaScript("big", args: [.string(String(repeating: "x", count: 2000))]) { e in result.withLock { $0 = e } }
        #expect(id == nil)
        if case .failed(.tooLarge)? = result.withLock({ $0 }) {
        } else {
            Issue.record("expected tooLarge at once, got \(String(describing: result.withLock { $0 }))")
        }
        #expect(s.callJavaScript("small", args: []) { _ in } == 1)
        #expect(s.queuedCount == 1)
    }

    @Test("a too-large invoke of a ready page uses no callbackId")
    func tooLargeWhenReady() async throws {
        let h = BridgeHarness { $0.replayMaxBytes = 1000 }
        let s = try await session(h)
        h.call(1, "_dsb.dsinit", nil)
        _ = try await h.messages(1)
        #expect(s.callJavaScript("big", args: [.string(String(repeating: "x", count: 2000))]) { _ in } == nil)
        #expect(s.callJavaScript("small", args: []) { _ in } == 1)
        #expect(try await h.messages(1).first?["callbackId"] == 1)
    }

    @Test("held invokes count toward the replay bound: over it, the session ends 4008 without waiting for dsinit")
    func heldInvokesBounded() async throws {
        let h = BridgeHarness { $0.replayMaxMessages = 5 }
        let s = try await session(h)
        for _ in 0..<6 { s.callJavaScript("f", args: []) { _ in } }
        #expect(try await h.closeCode() == 4008)
    }

    @Test("a held invoke that timed out is never delivered")
    func heldInvokeExpires() async throws {
        let h = BridgeHarness()
        let s = try await session(h)
        let result = Mutex<NativeCallEvent?>(nil)
        s.callJavaScript("f", args: [], timeout: .milliseconds(10)) { e in result.withLock { $0 = e } }
        h.executor.advance(milliseconds: 10)
        #expect(result.withLock { $0 } == .failed(.timeout))
        #expect(s.queuedCount == 0)
        h.call(1, "_dsb.dsinit", nil)
        h.call(2, "p.value", "after")
        let m = try await h.messages(2)
        #expect(m.map { $0["t"] } == ["ret", "ret"])
        #expect(m.last?["data"] == "after")
    }

    @Test("a ret turned into -1 failed (result too large) is final: no cb follows for its stub")
    func tooLargeRetIsFinal() async throws {
        let h = BridgeHarness { $0.replayMaxBytes = 1000 }
        _ = try await h.hello()
        h.call(1, "p.value", .string(String(repeating: "x", count: 2000)), stub: "dscb1")
        h.call(2, "p.value", "ok")
        let m = try await h.messages(2)
        #expect(m[0]["t"] == "ret")
        #expect(m[0]["code"] == -1)
        #expect(m[0]["error"]?["kind"] == "failed")
        #expect(m[1]["t"] == "ret")
        #expect(m[1]["data"] == "ok")
    }

    @Test("sync HTTP calls do not count toward maxAsyncCalls: an async method over HTTP runs at the bound")
    func syncCallsNotCountedAsAsync() async throws {
        let h = BridgeHarness { $0.maxAsyncCalls = 1 }
        let welcome = try await h.hello()
        let token = try #require(welcome["token"]?.stringValue)
        h.call(1, "p.untilCancelled", nil, stub: "dscb1")
        #expect(try await h.messages(2).first?["code"] == 0)  // ret "" and the first progress
        let result = await h.bridge.syncCall(token: token, request: SyncCallRequest(method: "p.twice", arg: nil, after: 0))
        guard case .success(let value)? = result else { Issue.record("refused: \(String(describing: result))"); return }
        #expect(value == "")
        // The HTTP call did not take the socket's slot either: the bound still holds for sockets.
        h.call(2, "p.untilCancelled", nil, stub: "dscb2")
        #expect(try await h.messages(1).first?["error"]?["kind"] == "overloaded")
    }
}

// SPDX-License-Identifier: MIT
import Foundation
import Synchronization
import Testing

@testable import DSBridge

/// Nothing a session holds outlives its use: waiters, locks, tasks (issue 13).
@Suite("Session leaks and lock order")
struct SessionLeakTests {
    @Test("a sync call whose X-DSBridge-After never arrives leaves no waiter behind after its timeout")
    func afterWaiterRemovedOnTimeout() async throws {
        let h = BridgeHarness { $0.afterTimeoutMs = 20 }
        let welcome = try await h.hello()
        let token = try #require(welcome["token"]?.stringValue)
        let session = try #require(h.bridge.session(token: token))
        for _ in 0..<3 {
            let timers = h.executor.pendingTimerCount
            let call = Task { await h.bridge.syncCall(token: token, request: SyncCallRequest(method: "p.value", arg: ["data": 1], after: 1_000_000)) }
            // The waiter is registered a moment before its timeout is scheduled: moving the
            // clock in between would leave the call waiting for ever.
            #expect(await h.eventually { session.afterWaiterCount == 1 && h.executor.pendingTimerCount > timers })
            h.executor.advance(milliseconds: 20)
            let result = await call.value
            guard case .failure(let failure)? = result else { Issue.record("answered: \(String(describing: result))"); return }
            #expect(failure.kind == .timeout)
            #expect(session.afterWaiterCount == 0)
        }
    }

    @Test("waiting sync calls are bounded per session: one more is overloaded at once")
    func afterWaitersBounded() async throws {
        let h = BridgeHarness { $0.afterTimeoutMs = 60_000 }
        let welcome = try await h.hello()
        let token = try #require(welcome["token"]?.stringValue)
        let session = try #require(h.bridge.session(token: token))
        let bridge = h.bridge
        let request = SyncCallRequest(method: "p.value", arg: ["data": 1], after: 5)
        let waiting = (0..<BridgeSession.maxAfterWaiters).map { _ in Task { await bridge.syncCall(token: token, request: request) } }
        #expect(await h.eventually { session.afterWaiterCount == BridgeSession.maxAfterWaiters })
        let extra = await bridge.syncCall(token: token, request: request)
        guard case .failure(let failure)? = extra else { Issue.record("answered: \(String(describing: extra))"); return }
        #expect(failure.kind == .overloaded)
        h.call(5, "p.value", 5)  // every waiter starts now
        for task in waiting {
            guard case .success? = await task.value else { Issue.record("a waiter failed"); return }
        }
        #expect(session.afterWaiterCount == 0)
    }

    @Test("ending a session cancels its calls outside its lock: a method completing from its cancellation handler does not deadlock")
    func endCancelsOutsideLock() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, "p.completesOnCancel", nil, stub: "dscb1")
        #expect(try await h.messages(1).first?["t"] == "ret")
        let finished = Atomic<Bool>(false)
        let harness = h
        Thread.detachNewThread {
            harness.call(2, "_dsb.closePage", nil)
            finished.store(true, ordering: .releasing)
        }
        #expect(await h.eventually { finished.load(ordering: .acquiring) })
        #expect(h.connection.session == nil || h.connection.session?.isEnded == true)
    }
}

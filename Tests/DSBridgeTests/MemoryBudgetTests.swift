// SPDX-License-Identifier: MIT
import Foundation
import Synchronization
import Testing

@testable import DSBridge

/// The daemon-wide count of bytes held for sessions (PROTOCOL.md 2.6): what goes up, what
/// comes down, and that a session gives everything back when it ends.
@Suite("Memory budget accounting")
struct MemoryBudgetAccountingTests {
    /// A string of `n` characters.
    static func payload(_ n: Int) -> JSONValue { .string(String(repeating: "x", count: n)) }

    @Test("a queued answer counts until the page acknowledges it, then nothing is left")
    func answerCountsUntilAcknowledged() async throws {
        let h = BridgeHarness()
        let welcome = try await h.hello()
        #expect(h.bridge.memory.held == 0, "the welcome is not a session message")
        h.call(1, "p.value", Self.payload(10_000))
        let ret = try await h.messages(1)[0]
        let seq = try #require(ret["seq"]?.integerValue)
        let token = try #require(welcome["token"]?.stringValue)
        let session = try #require(h.bridge.session(token: token))
        #expect(h.bridge.memory.held > 10_000, "the ret holds the 10,000 bytes echoed")
        #expect(session.memoryHeld == h.bridge.memory.held)
        #expect(session.memoryHeld == session.replayBytes)
        h.send(["t": "ack", "seq": .integer(seq)])
        #expect(await h.eventually { h.bridge.memory.held == 0 })
        #expect(session.memoryHeld == 0)
    }

    @Test("ending a session gives back every byte it held, and it counts nothing after")
    func endReturnsEverything() async throws {
        let h = BridgeHarness()
        let welcome = try await h.hello()
        let token = try #require(welcome["token"]?.stringValue)
        let session = try #require(h.bridge.session(token: token))
        for id in 1...3 { h.call(Int64(id), "p.value", Self.payload(5_000)) }
        _ = try await h.messages(3)
        _ = session.callJavaScript("later", args: [Self.payload(4_000)]) { _ in }  // held: no dsinit yet
        #expect(h.bridge.memory.held > 19_000)
        session.end(reason: "test", closeCode: 1000)
        #expect(h.bridge.memory.held == 0)
        #expect(session.memoryHeld == 0)
        _ = session.callJavaScript("after", args: [Self.payload(4_000)]) { _ in }
        h.send(["t": "ack", "seq": 99])
        session.end(reason: "again", closeCode: 1000)
        #expect(h.bridge.memory.held == 0, "never negative, nothing counted after the end")
    }

    @Test("held invokes count before dsinit and as replay after it, until acknowledged; an abandoned one gives its bytes back")
    func heldInvokesCount() async throws {
        let h = BridgeHarness()
        let welcome = try await h.hello()
        let token = try #require(welcome["token"]?.stringValue)
        let session = try #require(h.bridge.session(token: token))
        let first = try #require(session.callJavaScript("m", args: [Self.payload(3_000)]) { _ in })
        _ = session.callJavaScript("m", args: [Self.payload(3_000)]) { _ in }
        let both = h.bridge.memory.held
        #expect(both > 6_000)
        session.abandonJavaScriptCall(first, reason: .timeout)
        #expect(h.bridge.memory.held < both && h.bridge.memory.held > 3_000)
        h.call(1, "_dsb.dsinit", nil)
        let out = try await h.messages(2)  // the ret of dsinit, the released invoke
        #expect(h.bridge.memory.held > 3_000, "released: now in the replay buffer")
        let seqs = out.compactMap { $0["seq"]?.integerValue }
        let last = try #require(seqs.max())
        h.send(["t": "ack", "seq": .integer(last)])
        #expect(await h.eventually { h.bridge.memory.held == 0 })
    }

    @Test("a frame waiting for the call rate counts until its calls start")
    func rateWaitCounts() async throws {
        let clock = ManualExecutor()
        let h = BridgeHarness(configure: { $0.maxCallsPerSecond = 1 }, executor: clock)
        _ = try await h.hello()
        h.call(1, "p.value", 1)
        _ = try await h.messages(1)
        h.send(["t": "ack", "seq": 1])
        #expect(await h.eventually { h.bridge.memory.held == 0 })
        h.call(2, "p.value", Self.payload(8_000))
        #expect(await h.eventually { h.bridge.memory.held > 8_000 }, "the frame waits for the rate")
        #expect(h.connection.session?.memoryHeld == h.bridge.memory.held)
        clock.advance(milliseconds: 2_000)
        let ret = try await h.messages(1)[0]
        h.send(["t": "ack", "seq": .integer(try #require(ret["seq"]?.integerValue))])
        #expect(await h.eventually { h.bridge.memory.held == 0 })
    }

    @Test("a sync-call body counts while the call waits for socket calls, and not after it is answered")
    func syncBodyCounts() async throws {
        let h = BridgeHarness { $0.afterTimeoutMs = 10_000 }
        let welcome = try await h.hello()
        let token = try #require(welcome["token"]?.stringValue)
        let bridge = h.bridge
        let request = SyncCallRequest(method: "p.value", arg: ["data": 1], after: 1, bodyBytes: 50_000)
        let call = Task { await bridge.syncCall(token: token, request: request) }
        #expect(await h.eventually { bridge.memory.held >= 50_000 })
        h.call(1, "p.value", 1)
        guard case .success? = await call.value else { Issue.record("the sync call failed"); return }
        let ret = try await h.messages(1)[0]
        h.send(["t": "ack", "seq": .integer(try #require(ret["seq"]?.integerValue))])
        #expect(await h.eventually { bridge.memory.held == 0 })
    }
}

/// Which sessions the budget ends (``MemoryShedding``), as pure arithmetic.
@Suite("Memory budget shedding choice")
struct MemorySheddingTests {
    @Test("nothing is ended while the count is not over the budget")
    func notOver() {
        #expect(MemoryShedding.victims(holdings: [900, 100], total: 1_000, budget: 1_000).isEmpty)
    }

    @Test("the largest holder goes first, then the next, until the count is under 90% of the budget")
    func largestFirstUntilUnder90() {
        // 1,500 held of 1,000: ending 600 leaves 900 (not under 900), ending 400 more leaves 500.
        #expect(MemoryShedding.victims(holdings: [100, 600, 400, 300, 100], total: 1_500, budget: 1_000) == [1, 2])
        // Ending the largest alone brings it under 90%.
        #expect(MemoryShedding.victims(holdings: [50, 700, 350], total: 1_100, budget: 1_000) == [1])
    }

    @Test("a session holding no more than its fair share (budget ÷ live sessions) is never ended")
    func fairShare() {
        // 4 sessions, budget 1,000: share 250. All at 250 plus 200 of unowned bytes: over, none ended.
        #expect(MemoryShedding.victims(holdings: [250, 250, 250, 250], total: 1_200, budget: 1_000).isEmpty)
        // One at 500: ended; then 3 live, share 333, the rest (200 each) stay although still over 90%.
        #expect(MemoryShedding.victims(holdings: [200, 500, 200, 200], total: 1_300, budget: 1_000) == [1])
    }

    @Test("new sessions are admitted up to 90% of the budget")
    func admission() {
        let budget = MemoryBudget(limit: 1_000)
        #expect(budget.admissionLimit == 900)
        budget.add(900)
        #expect(budget.admitsNewSessions)
        budget.add(1)
        #expect(!budget.admitsNewSessions)
        budget.add(-901)
        #expect(budget.held == 0)
    }
}

/// The budget applied to live sessions: endings, refusals, resumes (PROTOCOL.md 2.6).
@Suite("Memory budget shedding")
struct MemoryBudgetSheddingTests {
    static func payload(_ n: Int) -> JSONValue { .string(String(repeating: "x", count: n)) }

    /// Sends `count` calls echoing `bytes` each and waits for their `ret`s (never acknowledged).
    static func fill(_ h: BridgeHarness, from id: Int64, count: Int, bytes: Int) async throws {
        for i in 0..<count { h.call(id + Int64(i), "p.value", payload(bytes)) }
        _ = try await h.messages(count)
    }

    @Test("over the budget the largest holder is closed 4008 memory budget, a small one stays, and the count drops")
    func largestClosed() async throws {
        let h = BridgeHarness { $0.memoryBudget = 100_000 }
        _ = try await h.hello()
        let small = h.secondConnection()
        _ = try await small.hello()
        try await Self.fill(small, from: 1, count: 1, bytes: 10_000)
        try await Self.fill(h, from: 1, count: 8, bytes: 10_000)
        #expect(h.bridge.memory.sessionsEnded == 0, "80,000 + 10,000 is within the budget")
        for i in 0..<4 { h.call(9 + Int64(i), "p.value", Self.payload(10_000)) }
        // The shedding thread closes it (its waker wakes the harness).
        let close = try await h.close()
        #expect(close.code == 4008)
        #expect(close.reason == "memory budget")
        // (The shedding thread counts an ending right after it ends the session.)
        #expect(await h.eventually { h.bridge.memory.sessionsEnded == 1 })
        #expect(small.connection.session?.isEnded == false, "the session within its share stays")
        #expect(await h.eventually { h.bridge.memory.held < 90_000 })
    }

    @Test("a session in its grace period is ended silently; a later hello naming it gets 4004")
    func graceSessionEndsSilently() async throws {
        let h = BridgeHarness { $0.memoryBudget = 50_000 }
        let welcome = try await h.hello()
        let token = try #require(welcome["token"]?.stringValue)
        let session = try #require(h.bridge.session(token: token))
        h.connection.socketClosed()
        for _ in 0..<6 { _ = session.callJavaScript("m", args: [Self.payload(10_000)]) { _ in } }
        #expect(await h.eventually { session.isEnded })
        // (The shedding thread counts an ending right after it ends the session.)
        #expect(await h.eventually { h.bridge.memory.held == 0 && h.bridge.memory.sessionsEnded == 1 })
        let again = h.secondConnection()
        again.send(["t": "hello", "v": 1, "token": .string(token)])
        #expect(try await again.closeCode() == 4004)
    }

    @Test("over 90% of the budget new sessions are refused (4029 memory budget, and by createSession), resumes are not")
    func newSessionsRefusedOver90() async throws {
        let h = BridgeHarness { $0.memoryBudget = 100_000 }
        let welcome = try await h.hello()
        let token = try #require(welcome["token"]?.stringValue)
        try await Self.fill(h, from: 1, count: 19, bytes: 5_000)  // about 95,500 bytes: over 90%, within the budget
        #expect(h.bridge.memory.held > 90_000 && h.bridge.memory.held <= 100_000)
        let fresh = h.secondConnection(peerAddress: "127.0.0.2")
        fresh.send(["t": "hello", "v": 1])
        let refusal = try await fresh.close()
        #expect(refusal.code == 4029)
        #expect(refusal.reason == "memory budget")
        #expect(throws: SessionRefusal(code: 4029, reason: "memory budget")) {
            try h.bridge.createSession(peerAddress: "127.0.0.3", origin: nil)
        }
        #expect(h.bridge.memory.sessionsRefused == 2)
        let resume = h.secondConnection()
        resume.send(["t": "hello", "v": 1, "token": .string(token), "ack": 19])
        let resumed = try await resume.messages(1)[0]
        #expect(resumed["resumed"] == true, "a resume is not a new session")
        #expect(await h.eventually { h.bridge.memory.held == 0 }, "its ack freed the replay")
        _ = try h.bridge.createSession(peerAddress: "127.0.0.3", origin: nil)
    }
}

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

/// Which sessions the budget ends (``MemoryShedding``), as pure arithmetic (PROTOCOL.md 2.6,
/// text revision 1.13: from 90% of the budget, each session's share being 90% ÷ live sessions).
@Suite("Memory budget shedding choice")
struct MemorySheddingTests {
    @Test("nothing is ended while the count is not over 90% of the budget")
    func notOver90() {
        #expect(MemoryShedding.sheddingLimit(budget: 1_000) == 900)
        #expect(MemoryShedding.victims(holdings: [800, 100], total: 900, budget: 1_000).isEmpty)
        #expect(MemoryShedding.victims(holdings: [], total: 2_000, budget: 1_000).isEmpty, "no session, nothing to end")
    }

    @Test("just over 90%: the largest holder above its share is ended")
    func justOver90() {
        // 901 held of 1,000, two sessions: share 450; 801 is above it and goes, 100 stays.
        #expect(MemoryShedding.victims(holdings: [100, 801], total: 901, budget: 1_000) == [1])
    }

    @Test("the largest holder goes first, then the next, until the count is no longer over 90%")
    func largestFirstUntilNotOver90() {
        // 1,500 held of 1,000: ending 600 leaves 900 (not over 900): one ending is enough.
        #expect(MemoryShedding.victims(holdings: [100, 600, 400, 300, 100], total: 1_500, budget: 1_000) == [1])
        // 1,501: ending 600 leaves 901, over 90%; then 400 (share 900 ÷ 4 = 225) leaves 501.
        #expect(MemoryShedding.victims(holdings: [100, 600, 400, 300, 101], total: 1_501, budget: 1_000) == [1, 2])
        // Under the budget and over 90%: the same rule (before revision 1.13 nothing was ended here).
        #expect(MemoryShedding.victims(holdings: [50, 700, 200], total: 950, budget: 1_000) == [1])
    }

    @Test("a session holding no more than its share (90% of the budget ÷ live sessions) is never ended")
    func share() {
        // 4 sessions, budget 1,000: share 225. All at 225 plus 300 bytes of no session: over, none ended.
        #expect(MemoryShedding.victims(holdings: [225, 225, 225, 225], total: 1_200, budget: 1_000).isEmpty)
        // One at 226 of four equal-ish: above the share, ended, although the rest would fit.
        #expect(MemoryShedding.victims(holdings: [225, 226, 225, 225], total: 901, budget: 1_000) == [1])
        // One at 500: ended; then 3 live, share 300, the rest (200 each) stay although still over 90%.
        #expect(MemoryShedding.victims(holdings: [200, 500, 200, 200], total: 1_300, budget: 1_000) == [1])
    }

    @Test("thirty equal holders just over 90% of the budget (the lock of revision 1.6) lose one")
    func equalHoldersOver90() {
        // 30 × 8,100 = 243,000 of 268,435 (90.5%): each is above its share 241,592 ÷ 30 = 8,053.
        let holdings = Array(repeating: 8_100, count: 30)
        let victims = MemoryShedding.victims(holdings: holdings, total: 243_000, budget: 268_435)
        #expect(victims.count == 1)
    }

    @Test("new sessions are admitted up to the budget, refused just over it")
    func admission() {
        let budget = MemoryBudget(limit: 1_000)
        #expect(budget.sheddingLimit == 900)
        budget.add(901)
        #expect(budget.admitsNewSessions, "over 90%: admitted (the largest holders are ended instead)")
        budget.add(99)
        #expect(budget.admitsNewSessions, "at the budget: admitted")
        budget.add(1)
        #expect(!budget.admitsNewSessions, "over the budget: refused")
        budget.add(-1_001)
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

    @Test("over 90% of the budget the largest holder is closed 4008 memory budget, a small one stays, and the count drops")
    func largestClosed() async throws {
        let h = BridgeHarness { $0.memoryBudget = 100_000 }
        _ = try await h.hello()
        let small = h.secondConnection()
        _ = try await small.hello()
        try await Self.fill(small, from: 1, count: 1, bytes: 10_000)
        try await Self.fill(h, from: 1, count: 7, bytes: 10_000)
        #expect(h.bridge.memory.sessionsEnded == 0, "70,000 + 10,000 is not over 90% of the budget")
        // Two more: about 90,100 bytes, over 90% and within the budget.
        for i in 0..<2 { h.call(8 + Int64(i), "p.value", Self.payload(10_000)) }
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

    @Test(
        "over 90% of the budget and within it new sessions are admitted; over it they are refused (4029 memory budget, and by createSession), resumes are not"
    )
    func newSessionsRefusedOverBudget() async throws {
        let h = BridgeHarness { $0.memoryBudget = 100_000 }
        let welcome = try await h.hello()
        let token = try #require(welcome["token"]?.stringValue)
        try await Self.fill(h, from: 1, count: 1, bytes: 5_000)
        // Bytes of no session (as frames read before a hello are): no session is above its
        // share, so nothing is ended and the count stays where it is put.
        let unowned = 95_000 - h.bridge.memory.held
        h.bridge.memory.add(unowned)
        #expect(h.bridge.memory.held > 90_000 && h.bridge.memory.held <= 100_000)
        let admitted = h.secondConnection(peerAddress: "127.0.0.2")
        _ = try await admitted.hello()
        _ = try h.bridge.createSession(peerAddress: "127.0.0.3", origin: nil)
        #expect(h.bridge.memory.sessionsRefused == 0, "over 90%, within the budget: admitted")
        h.bridge.memory.add(6_000)
        #expect(h.bridge.memory.held > 100_000)
        let fresh = h.secondConnection(peerAddress: "127.0.0.4")
        fresh.send(["t": "hello", "v": 1])
        let refusal = try await fresh.close()
        #expect(refusal.code == 4029)
        #expect(refusal.reason == "memory budget")
        #expect(throws: SessionRefusal(code: 4029, reason: "memory budget")) {
            try h.bridge.createSession(peerAddress: "127.0.0.3", origin: nil)
        }
        #expect(h.bridge.memory.sessionsRefused == 2)
        #expect(h.bridge.memory.sessionsEnded == 0, "every session is within its share")
        let resume = h.secondConnection()
        resume.send(["t": "hello", "v": 1, "token": .string(token), "ack": 1])
        let resumed = try await resume.messages(1)[0]
        #expect(resumed["resumed"] == true, "a resume is not a new session")
        h.bridge.memory.add(-(unowned + 6_000))
        #expect(await h.eventually { h.bridge.memory.held == 0 }, "its ack freed the replay")
        _ = try h.bridge.createSession(peerAddress: "127.0.0.3", origin: nil)
    }
}

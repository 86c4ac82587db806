// SPDX-License-Identifier: MIT
import DSBridge
import Testing

@Suite("Call rate per session (maxCallsPerSecond)")
struct CallRateTests {
    @Test("a full bucket lets a burst of one second's worth through at once")
    func burst() {
        var rate = CallRateLimiter(perSecond: 100, now: 0)
        #expect(rate.take(100, now: 0) == 0)
        #expect(rate.take(1, now: 0) == 10)
    }

    @Test("calls over the rate wait until the bucket refills, debt included")
    func debt() {
        var rate = CallRateLimiter(perSecond: 1000, now: 0)
        #expect(rate.take(1500, now: 0) == 500)
        #expect(rate.take(1, now: 500) == 1)
        #expect(rate.take(0, now: 2000) == 0)
        #expect(rate.take(1000, now: 5000) == 0, "refills to one second's worth, no more")
        #expect(rate.take(1, now: 5000) == 1)
    }

    @Test("time going backwards never adds calls")
    func monotonic() {
        var rate = CallRateLimiter(perSecond: 10, now: 1000)
        #expect(rate.take(10, now: 1000) == 0)
        #expect(rate.take(1, now: 500) == 100)
    }

    @Test("a flood over the rate is slowed, not refused: every call runs once, in order")
    func floodWaits() async throws {
        let clock = ManualExecutor()
        let h = BridgeHarness(configure: { $0.maxCallsPerSecond = 5 }, executor: clock)
        _ = try await h.hello()
        h.send(.array((1...8).map { i in ["t": "call", "id": .integer(Int64(i)), "method": "p.record", "arg": ["data": .integer(Int64(i))]] }))
        h.call(9, "p.record", 9)
        await expectNoMessage(h)
        #expect(h.probe.started.withLock { $0 }.isEmpty, "8 calls against 5 tokens wait 600 ms")
        #expect(h.connection.wantsReadsPaused, "the socket is not read while calls wait")
        clock.advance(milliseconds: 600)
        let first = try await h.messages(8)
        #expect(first.map { $0["id"]?.integerValue ?? 0 } == Array(1...8))
        // The next frame's call costs another 200 ms (1 token at 5/s).
        await expectNoMessage(h)
        clock.advance(milliseconds: 200)
        let second = try await h.messages(1)
        #expect(second.first?["id"] == 9)
        #expect(h.probe.started.withLock { $0 } == (1...9).map { JSONValue.integer(Int64($0)) })
        #expect(!h.connection.wantsReadsPaused)
    }

    @Test("a @nonblocking call alone in its frame waits for the rate like any call: each runs once, in order")
    func loneNonblockingCallWaits() async throws {
        let clock = ManualExecutor()
        let h = BridgeHarness(configure: { $0.maxCallsPerSecond = 2 }, executor: clock)
        let probe = NonblockingProbe()
        h.bridge.addInterface(probe, by: "n")
        _ = try await h.hello()
        for i in 1...3 { h.call(Int64(i), "n.fast", .integer(Int64(i))) }
        let first = try await h.messages(2)
        #expect(first.map { $0["id"]?.integerValue ?? 0 } == [1, 2])
        await expectNoMessage(h)
        #expect(probe.fastThreads.withLock { $0.count } == 2, "the third call waits 500 ms for its token")
        #expect(h.connection.wantsReadsPaused)
        clock.advance(milliseconds: 500)
        let third = try await h.messages(1)
        #expect(third.first?["id"] == 3 && third.first?["data"] == 3)
        #expect(probe.fastThreads.withLock { $0.count } == 3)
        #expect(!h.connection.wantsReadsPaused)
    }

    @Test("0 means no limit")
    func unlimited() async throws {
        let clock = ManualExecutor()
        let h = BridgeHarness(configure: { $0.maxCallsPerSecond = 0 }, executor: clock)
        _ = try await h.hello()
        for i in 1...50 { h.call(Int64(i), "p.record", .integer(Int64(i))) }
        #expect(try await h.messages(50).count == 50)
    }

    private func expectNoMessage(_ h: BridgeHarness) async {
        do {
            let m = try await h.messages(1, timeout: .milliseconds(100))
            Issue.record("unexpected message \(m)")
        } catch {}
    }
}

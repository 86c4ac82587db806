// SPDX-License-Identifier: MIT
import DSBridge
import Testing

@testable import DSBridgeServer

/// The timing rules of one socket, on a clock moved by hand.
@Suite("SocketLiveness: deadlines of one socket")
struct SocketLivenessTests {
    @Test("the hello timeout fires at helloTimeoutMs, once")
    func helloTimeout() {
        var l = SocketLiveness(openedAt: 1_000, heartbeatMs: 20_000, helloTimeoutMs: 10_000)
        #expect(l.nextDeadline == 11_000)
        #expect(l.fire(at: 10_999) == [])
        #expect(l.fire(at: 11_000) == [.helloTimeout])
        #expect(!l.fire(at: 11_001).contains(.helloTimeout))
        #expect(l.nextDeadline == 21_000)
    }

    @Test("silence is hung up at exactly 2 × heartbeat after the last frame, not a millisecond earlier")
    func hangUpAtTwiceHeartbeat() {
        var l = SocketLiveness(openedAt: 0, heartbeatMs: 500, helloTimeoutMs: 10_000)
        l.received(at: 120)
        #expect(l.hangUpAt == 1_120)
        #expect(!l.fire(at: 1_119).contains(.hangUp))
        #expect(l.fire(at: 1_120).contains(.hangUp))
        var slow = SocketLiveness(openedAt: 0, heartbeatMs: 2_900, helloTimeoutMs: 10_000)
        slow.received(at: 0)
        #expect(slow.hangUpAt == 5_800)
    }

    @Test("any frame moves the hang-up; an older stamp does not move it back")
    func trafficMovesHangUp() {
        var l = SocketLiveness(openedAt: 0, heartbeatMs: 500, helloTimeoutMs: 10_000)
        l.received(at: 900)
        l.received(at: 800)
        #expect(l.hangUpAt == 1_900)
        #expect(!l.fire(at: 1_500).contains(.hangUp))
    }

    @Test("paused reads are not silence: no hang-up while paused, and the clock restarts at resume")
    func pausedReads() {
        var l = SocketLiveness(openedAt: 0, heartbeatMs: 500, helloTimeoutMs: 10_000)
        l.setReadsPaused(true, at: 100)
        #expect(l.hangUpAt == nil)
        #expect(!l.fire(at: 5_000).contains(.hangUp))
        l.setReadsPaused(false, at: 6_000)
        #expect(l.hangUpAt == 7_000)
    }

    @Test("a ping every heartbeat; hb only after heartbeat ms without a write")
    func pingsAndHeartbeats() {
        var l = SocketLiveness(openedAt: 0, heartbeatMs: 500, helloTimeoutMs: 10_000)
        l.received(at: 0)
        l.wrote(at: 300)
        #expect(l.nextDeadline == 500)
        #expect(l.fire(at: 500) == [.ping])
        #expect(l.nextDeadline == 800)
        l.received(at: 600)
        #expect(l.fire(at: 800) == [.heartbeat])
        #expect(l.nextDeadline == 1_000)
        #expect(l.fire(at: 1_000) == [.ping])
    }
}

/// The heap of deadlines the service loop keeps.
@Suite("DeadlineQueue: earliest first")
struct DeadlineQueueTests {
    @Test("entries come out in deadline order, equal deadlines in scheduling order, only when due")
    func order() {
        var q = DeadlineQueue<String>()
        q.schedule("c", at: 30)
        q.schedule("a", at: 10)
        q.schedule("b1", at: 20)
        q.schedule("b2", at: 20)
        #expect(q.earliest == 10)
        #expect(q.popDue(now: 9) == nil)
        var out: [String] = []
        while let (subject, _) = q.popDue(now: 25) { out.append(subject) }
        #expect(out == ["a", "b1", "b2"])
        #expect(q.count == 1)
        #expect(q.popDue(now: 30)?.deadline == 30)
        #expect(q.earliest == nil)
    }

    @Test("100,000 entries: every one comes out once, in order")
    func many() {
        var q = DeadlineQueue<Int>()
        var g = SystemRandomNumberGenerator()
        for i in 0..<100_000 { q.schedule(i, at: UInt64.random(in: 0..<1_000_000, using: &g)) }
        var last: UInt64 = 0
        var seen = 0
        while let (_, deadline) = q.popDue(now: .max) {
            #expect(deadline >= last)
            last = deadline
            seen += 1
        }
        #expect(seen == 100_000)
    }
}

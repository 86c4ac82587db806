// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridgeServer

private func machine(heartbeatMs: Int = 500, helloTimeoutMs: Int = 1_000) -> WebSocketConnectionMachine {
    WebSocketConnectionMachine(now: 0, heartbeatMs: heartbeatMs, helloTimeoutMs: helloTimeoutMs)
}

/// The writes a shell makes before the session's messages, in order.
private func controlWrites(_ m: inout WebSocketConnectionMachine) -> [WebSocketConnectionMachine.Write] {
    var writes: [WebSocketConnectionMachine.Write] = []
    while let w = m.nextControlWrite() {
        writes.append(w)
        if case .close = w { break }
    }
    return writes
}

@Suite("WebSocketConnectionMachine: a page's WebSocket after the upgrade, event by event, without sockets")
struct WebSocketConnectionMachineTests {
    @Test("an open connection reads, has its first deadline at the earliest timing rule, and has nothing to write")
    func opens() {
        var m = machine()
        #expect(m.state == .open)
        #expect(m.wantsInput)
        #expect(m.takesFrames)
        #expect(m.deadline == 500)  // the first ping, before the hello timeout (1 000)
        #expect(!m.hasWriteDue)
        #expect(controlWrites(&m) == [])
        let said1 = m.takeHeartbeat()
        #expect(!said1)
    }

    @Test("no hello in time: close 4000 decided, its frame first; a hello that came means no close")
    func helloTimeout() {
        var waiting = machine(heartbeatMs: 5_000, helloTimeoutMs: 1_000)
        #expect(waiting.deadline == 1_000)
        let said2 = waiting.deadlinePassed(now: 999, awaitsHello: true)
        #expect(said2 == .none)
        let said3 = waiting.deadlinePassed(now: 1_000, awaitsHello: true)
        #expect(said3 == .helloTimedOut)
        #expect(waiting.state == .closeDecided(code: 4000, reason: "hello timeout"))
        #expect(!waiting.takesFrames)
        #expect(waiting.hasWriteDue)
        #expect(controlWrites(&waiting) == [.close(code: 4000, reason: "hello timeout")])
        var greeted = machine(heartbeatMs: 5_000, helloTimeoutMs: 1_000)
        let said4 = greeted.deadlinePassed(now: 1_000, awaitsHello: false)
        #expect(said4 == .none)
        #expect(greeted.state == .open)
        #expect(greeted.deadline == 5_000)
    }

    @Test("silence for 2 × heartbeat drops the connection, not a millisecond earlier; any frame moves it")
    func hangUp() {
        var m = machine(heartbeatMs: 500, helloTimeoutMs: 60_000)
        m.trafficArrived(now: 120)
        _ = m.deadlinePassed(now: 500, awaitsHello: false)
        _ = controlWrites(&m)
        _ = m.deadlinePassed(now: 1_000, awaitsHello: false)
        _ = controlWrites(&m)
        let said5 = m.deadlinePassed(now: 1_119, awaitsHello: false)
        #expect(said5 != .drop(.silent))
        let said6 = m.deadlinePassed(now: 1_120, awaitsHello: false)
        #expect(said6 == .drop(.silent))
        #expect(m.state == .closed)
    }

    @Test("paused reads are not silence: no hang-up while paused, the clock restarts on resume")
    func pausedReads() {
        var m = machine(heartbeatMs: 500, helloTimeoutMs: 60_000)
        let said7 = m.setReadsPaused(true, now: 100)
        #expect(said7)
        let said8 = m.setReadsPaused(true, now: 100)
        #expect(!said8)
        #expect(!m.wantsInput)
        let said9 = m.deadlinePassed(now: 5_000, awaitsHello: false)
        #expect(said9 != .drop(.silent))
        let said10 = m.setReadsPaused(false, now: 6_000)
        #expect(said10)
        #expect(m.wantsInput)
        #expect(m.liveness.hangUpAt == 7_000)
    }

    @Test("what goes out first: a decided close alone; else a pong owed, then a due ping; hb only when nothing else went")
    func writeOrder() {
        var m = machine(heartbeatMs: 500, helloTimeoutMs: 60_000)
        m.pinged([1, 2])
        let said11 = m.deadlinePassed(now: 500, awaitsHello: false)
        #expect(said11 == .write)
        #expect(controlWrites(&m) == [.pong([1, 2]), .ping])
        let said12 = m.takeHeartbeat()
        #expect(said12)
        let said13 = m.takeHeartbeat()
        #expect(!said13)
        // A message written since (and the page heard from): no hb at the next period.
        m.trafficArrived(now: 900)
        m.wroteMessage(now: 900)
        let said14 = m.deadlinePassed(now: 1_000, awaitsHello: false)
        #expect(said14 == .write)
        #expect(controlWrites(&m) == [.ping])
        let said15 = m.takeHeartbeat()
        #expect(!said15)
        // A close decided with a pong owed: the close goes alone.
        m.pinged([3])
        let said16 = m.decideClose(code: 4008, reason: "replay")
        #expect(said16)
        let said17 = m.decideClose(code: 1001, reason: "draining")
        #expect(!said17)
        #expect(controlWrites(&m) == [.close(code: 4008, reason: "replay")])
    }

    @Test("a close frame written: the connection lingers, reading and dropping, until lingerMs; no more writes")
    func lingering() {
        var m = machine(heartbeatMs: 500, helloTimeoutMs: 60_000)
        m.pinged([1])
        m.closeFrameWritten(now: 300)
        #expect(m.isLingering)
        #expect(m.wantsInput)
        #expect(!m.takesFrames)
        #expect(m.deadline == 300 + WebSocketConnectionMachine.lingerMs)
        #expect(controlWrites(&m) == [])
        let said18 = m.takeHeartbeat()
        #expect(!said18)
        let said19 = m.decideClose(code: 1000, reason: "")
        #expect(!said19)
        let said20 = m.deadlinePassed(now: 2_299, awaitsHello: false)
        #expect(said20 == .none)
        let said21 = m.deadlinePassed(now: 2_300, awaitsHello: false)
        #expect(said21 == .drop(.lingerEnded))
    }

    @Test("a close stuck behind a half-written frame drops the connection after lingerMs; an open one waits as long as it must")
    func closeBehindPartialFrame() {
        var open = machine(heartbeatMs: 60_000, helloTimeoutMs: 60_000)
        let said22 = open.blockedBehindPartialFrame(now: 100, sessionCloses: false)
        #expect(!said22)
        #expect(open.deadline == 60_000)
        var decided = machine(heartbeatMs: 60_000, helloTimeoutMs: 60_000)
        _ = decided.decideClose(code: 4008, reason: "memory")
        let said23 = decided.blockedBehindPartialFrame(now: 100, sessionCloses: false)
        #expect(said23)
        let said24 = decided.blockedBehindPartialFrame(now: 200, sessionCloses: false)
        #expect(!said24)
        #expect(decided.deadline == 2_100)
        let said25 = decided.deadlinePassed(now: 2_100, awaitsHello: false)
        #expect(said25 == .drop(.closeStuck))
        var sessionCloses = machine(heartbeatMs: 60_000, helloTimeoutMs: 60_000)
        let said26 = sessionCloses.blockedBehindPartialFrame(now: 0, sessionCloses: true)
        #expect(said26)
        // The close got out in time: the cutoff goes, the linger counts from then.
        sessionCloses.closeFrameWritten(now: 1_500)
        #expect(sessionCloses.deadline == 3_500)
    }

    /// Every state × event: what the machine says and where it goes.
    static let states: [WebSocketConnectionMachine.State] = [
        .open, .closeDecided(code: 4000, reason: "x"), .lingering(until: 2_000), .closed,
    ]

    private static func inState(_ state: WebSocketConnectionMachine.State) -> WebSocketConnectionMachine {
        var m = machine(heartbeatMs: 500, helloTimeoutMs: 60_000)
        switch state {
        case .open: break
        case .closeDecided: _ = m.decideClose(code: 4000, reason: "x")
        case .lingering: m.closeFrameWritten(now: 0)
        case .closed: m.closed()
        }
        return m
    }

    @Test("every state × event", arguments: states)
    func table(_ state: WebSocketConnectionMachine.State) {
        // decideClose: taken only when open.
        var a = Self.inState(state)
        let said27 = a.decideClose(code: 1001, reason: "d")
        #expect(said27 == (state == .open))
        // A deadline long past: open and closeDecided hang up (silent), lingering ends, closed stays.
        var b = Self.inState(state)
        let expected: WebSocketConnectionMachine.DeadlineAction =
            switch state {
            case .open, .closeDecided: .drop(.silent)
            case .lingering: .drop(.lingerEnded)
            case .closed: .none
            }
        let said28 = b.deadlinePassed(now: 100_000, awaitsHello: false)
        #expect(said28 == expected)
        // Control writes: only a decided close writes (its frame).
        var c = Self.inState(state)
        #expect(controlWrites(&c) == (state == .closeDecided(code: 4000, reason: "x") ? [.close(code: 4000, reason: "x")] : []))
        // Input: read while open or closing (unless paused) and while lingering; not once closed.
        let d = Self.inState(state)
        #expect(d.wantsInput == (state != .closed))
        #expect(d.takesFrames == (state == .open))
        // A frame stuck: the cutoff is armed only when a close waits.
        var e = Self.inState(state)
        #expect(
            e.blockedBehindPartialFrame(now: 0, sessionCloses: false) == (state == .closeDecided(code: 4000, reason: "x")))
    }
}

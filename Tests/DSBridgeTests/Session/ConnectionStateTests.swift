// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridge

/// ``ConnectionState`` driven directly, one transition at a time: no threads.
@Suite("Connection state machine")
struct ConnectionStateTests {
    typealias State = ConnectionState<FakeSocket>

    private func state(frames: Int = 2, bytes: Int = 1_000) -> State {
        State(inboxLimit: .init(frames: frames, bytes: bytes))
    }

    private func frame(_ n: Int = 10) -> [UInt8] { [UInt8](repeating: 32, count: n) }

    @Test("before a session every frame queues and the first one starts a worker")
    func queuesBeforeSession() {
        var s = state()
        guard case .queued(true, false, _) = s.receive(frame(), mayRunFirst: true) else { Issue.record("expected a worker start"); return }
        guard case .queued(false, false, _) = s.receive(frame(), mayRunFirst: true) else { Issue.record("one worker at a time"); return }
        do {
            let step = s.takeFrame()
            #expect(step?.helloSeen == false)
        }
        do {
            let step = s.takeFrame()
            #expect(step != nil)
        }
        do {
            let step = s.takeFrame()
            #expect(step == nil)
        }
        #expect(!s.processing, "an empty inbox ends the stretch")
    }

    @Test("with a session and nothing ahead, a small frame may run on the calling thread; a large one queues")
    func firstFrame() {
        var s = state()
        let session = FakeSocket()
        do {
            let step = s.adopt(session, welcome: [1])
            #expect(step)
        }
        guard case .first(let got) = s.receive(frame(), mayRunFirst: true) else { Issue.record("expected first"); return }
        #expect(got === session)
        guard case .queued(false, false, _) = s.receive(frame(), mayRunFirst: true) else { Issue.record("processing: it queues"); return }
        do {
            let step = s.finishProcessing()
            #expect(step, "frames wait: start a worker")
            let again = s.resumeProcessing()
            #expect(!again, "a worker is processing already")
        }
        var t = state()
        _ = t.adopt(session, welcome: [1])
        guard case .queued(true, _, _) = t.receive(frame(), mayRunFirst: false) else { Issue.record("a large frame goes to a worker"); return }
    }

    @Test("reads pause past the inbox bound and resume once it is emptied")
    func inboxBound() {
        var s = state(frames: 2)
        var held = 0
        for _ in 0..<2 {
            guard case .queued(_, false, let delta) = s.receive(frame(), mayRunFirst: false) else { Issue.record("queued"); return }
            held += delta
        }
        guard case .queued(_, true, let delta) = s.receive(frame(), mayRunFirst: false) else { Issue.record("expected a pause"); return }
        held += delta
        #expect(s.readsPaused)
        #expect(held == 30, "each queued frame's bytes come back as a memory delta")
        do {
            let step = s.takeFrame()
            #expect(step?.resumeReads == false)
            held += step?.memoryDelta ?? 0
        }
        do {
            let step = s.takeFrame()
            #expect(step?.resumeReads == false)
            held += step?.memoryDelta ?? 0
        }
        do {
            let step = s.takeFrame()
            #expect(step?.resumeReads == true, "the inbox emptied")
            held += step?.memoryDelta ?? 0
        }
        #expect(!s.readsPaused)
        #expect(held == 0)
    }

    @Test("pending calls hold the frames already read; a close drops them and gives their bytes back")
    func pausedForCalls() {
        var s = state(frames: 10)
        do {
            let step = s.setPaused(.calls, true)
            #expect(step)
        }
        do {
            let step = s.setPaused(.rate, true)
            #expect(!step, "already paused")
        }
        guard case .queued(false, _, let queued) = s.receive(frame(), mayRunFirst: true) else { Issue.record("held: no worker"); return }
        #expect(queued == 10)
        do {
            let step = s.takeFrame()
            #expect(step == nil)
        }
        do {
            let step = s.resumeProcessing()
            #expect(!step)
        }
        do {
            let step = s.setPaused(.calls, false)
            #expect(!step, "the rate still pauses reads")
        }
        do {
            let step = s.setPaused(.rate, false)
            #expect(step, "the last reason gone: reads resume")
        }
        do {
            let step = s.resumeProcessing()
            #expect(step)
        }
        do {
            let step = s.requestClose(code: 4000, reason: "x")
            #expect(step.first)
            #expect(step.memoryDelta == -queued, "the dropped frame's bytes go back")
        }
        do {
            let step = s.requestClose(code: 1000, reason: "y")
            #expect(!step.first, "the first close stands")
            #expect(step.memoryDelta == 0)
        }
        guard case .dropped = s.receive(frame(), mayRunFirst: true) else { Issue.record("closing: dropped"); return }
    }

    @Test("control frames go before the session's messages; the close is taken once")
    func output() {
        var s = state()
        let session = FakeSocket()
        _ = s.adopt(session, welcome: [7])
        #expect(s.hasOwnOutput)
        do {
            let step = s.takeControl()
            #expect(step.control == [7])
        }
        do {
            let step = s.takeControl()
            #expect(step.session === session)
        }
        _ = s.requestClose(code: 4009, reason: "replaced")
        do {
            let step = s.takeClose()
            #expect(step?.code == 4009)
        }
        do {
            let step = s.takeClose()
            #expect(step == nil)
        }
        #expect(!s.hasOwnOutput)
    }

    @Test("a closed socket refuses a session and hands back the one it had")
    func socketClosed() {
        var s = state()
        let session = FakeSocket()
        _ = s.adopt(session, welcome: [])
        do {
            let step = s.closeSocket()
            #expect(step.session === session)
            #expect(step.memoryDelta == 0, "nothing was queued")
        }
        #expect(s.session == nil)
        do {
            let step = s.adopt(session, welcome: [])
            #expect(!step)
        }
    }

    @Test("a frame waiting for the rate is counted until the wait ends")
    func rateWait() {
        var s = state()
        do {
            let step = s.startRateWait(bytes: 500)
            #expect(step == 500)
        }
        #expect(s.unprocessedBytes == 500)
        do {
            let step = s.finishRateWait()
            #expect(step.isOpen && step.memoryDelta == -500)
        }
        #expect(s.unprocessedBytes == 0)
    }
}

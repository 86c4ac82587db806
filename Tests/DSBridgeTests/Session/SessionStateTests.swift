// SPDX-License-Identifier: MIT
import Synchronization
import Testing

@testable import DSBridge

/// A socket for the state machines: only its identity matters.
final class FakeSocket: Sendable {}

/// ``SessionState`` driven directly, one transition at a time: no threads, no clock.
@Suite("Session state machine")
struct SessionStateTests {
    typealias State = SessionState<FakeSocket>

    private func state(maxMessages: Int = 100, maxBytes: Int = 1 << 20, maxAfterWaiters: Int = 4) -> State {
        State(log: OutboundLog(maxMessages: maxMessages, maxBytes: maxBytes), maxAfterWaiters: maxAfterWaiters)
    }

    @Test("attach returns the socket it replaces; detaching only the attached one starts a grace generation")
    func attachAndDetach() {
        var s = state()
        let a = FakeSocket()
        let b = FakeSocket()
        guard case .attached(let none) = s.attach(a, ack: 0) else { Issue.record("refused"); return }
        #expect(none == nil)
        guard case .attached(let replaced) = s.attach(b, ack: 0) else { Issue.record("refused"); return }
        #expect(replaced === a)
        do {
            let step = s.detach(a)
            #expect(step == nil, "a replaced socket's close changes nothing")
        }
        let generation = s.detach(b)
        #expect(generation != nil)
        #expect(s.isExpired(generation: generation ?? -1))
        _ = s.attach(a, ack: 0)
        #expect(!s.isExpired(generation: generation ?? -1), "a socket attached since: the old expiry does not apply")
    }

    @Test("a socket that closed before its welcome restores the previous one, or asks for a grace period")
    func attachFailed() {
        var s = state()
        let a = FakeSocket()
        let b = FakeSocket()
        _ = s.attach(a, ack: 0)
        _ = s.attach(b, ack: 0)
        do {
            let step = s.attachFailed(restoring: a)
            #expect(step == nil)
        }
        #expect(s.connection === a)
        var lone = state()
        _ = lone.attach(b, ack: 0)
        let generation = lone.attachFailed(restoring: nil)
        #expect(generation.map { lone.isExpired(generation: $0) } == true)
    }

    @Test("an ended session refuses attach, calls and messages, and ends once, handing back its effects")
    func ending() {
        var s = state()
        let a = FakeSocket()
        _ = s.attach(a, ack: 0)
        let fired = Mutex<[NativeCallEvent]>([])
        _ = s.startNativeCall(EncodedInvoke(method: "f", args: []), handler: { e in fired.withLock { $0.append(e) } })
        let waiterResumed = Mutex<Bool?>(nil)
        _ = s.acceptCall(id: 1)
        do {
            let step = s.waitForStarted(through: 5, resume: { ok in waiterResumed.withLock { $0 = ok } })
            #expect(step == .waiting(key: 0))
        }
        let ending = s.end(dropQueued: false)
        #expect(ending?.connection === a)
        #expect(ending?.handlers.count == 1)
        #expect(ending?.afterWaiters.count == 1)
        do {
            let step = s.end(dropQueued: false)
            #expect(step == nil, "ends once")
        }
        guard case .ended = s.attach(a, ack: 0) else { Issue.record("an ended session attached"); return }
        do {
            let step = s.acceptCall(id: 2)
            #expect(!step)
        }
        do {
            let step = s.append(.cb(stub: "x", payload: .cancelled))
            #expect(step.wake == nil)
        }
        guard case .ended = s.startNativeCall(EncodedInvoke(method: "g", args: []), handler: { _ in }) else { Issue.record("native call started"); return }
        do {
            let step = s.whenReady({})
            #expect(step == .never)
        }
    }

    @Test("calls run once each, in rising id order")
    func callIDs() {
        var s = state()
        do {
            let step = s.acceptCall(id: 1)
            #expect(step)
        }
        do {
            let step = s.acceptCall(id: 3)
            #expect(step)
        }
        do {
            let step = s.acceptCall(id: 3)
            #expect(!step, "a resent call ran already")
        }
        do {
            let step = s.acceptCall(id: 2)
            #expect(!step)
        }
        #expect(s.lastCall == 3)
    }

    @Test("reads pause at exactly maxCallsPending pending calls and resume one below")
    func pendingCalls() {
        var s = state()
        let a = FakeSocket()
        _ = s.attach(a, ack: 0)
        do {
            let step = s.pendingCallStarted(maxPending: 2)
            #expect(step == nil)
        }
        do {
            let step = s.pendingCallStarted(maxPending: 2)
            #expect(step === a)
        }
        #expect(s.pausesReads(maxPending: 2))
        do {
            let step = s.pendingCallFinished(maxPending: 2)
            #expect(step === a)
        }
        do {
            let step = s.pendingCallFinished(maxPending: 2)
            #expect(step == nil)
        }
        #expect(!s.pausesReads(maxPending: 2))
    }

    @Test("async calls are admitted up to maxAsyncCalls; a finished one frees its place")
    func asyncAdmission() {
        var s = state()
        do {
            let step = s.admitAsyncCall(max: 1)
            #expect(step)
        }
        do {
            let step = s.admitAsyncCall(max: 1)
            #expect(!step)
        }
        s.asyncCallFinished(callID: nil, counted: true)
        do {
            let step = s.admitAsyncCall(max: 1)
            #expect(step)
        }
    }

    @Test("sync calls waiting for socket calls start when those start; at most maxAfterWaiters wait; a timed-out one leaves")
    func afterWaiters() {
        var s = state(maxAfterWaiters: 2)
        do {
            let step = s.waitForStarted(through: 0, resume: { _ in })
            #expect(step == .started)
        }
        do {
            let step = s.waitForStarted(through: 2, resume: { _ in })
            #expect(step == .waiting(key: 0))
        }
        do {
            let step = s.waitForStarted(through: 3, resume: { _ in })
            #expect(step == .waiting(key: 1))
        }
        do {
            let step = s.waitForStarted(through: 4, resume: { _ in })
            #expect(step == .full)
        }
        _ = s.acceptCall(id: 2)
        do {
            let step = s.markStarted(through: 2)
            #expect(step.count == 1)
        }
        s.stopWaiting(key: 1)
        #expect(s.syncOrder.waiters.isEmpty)
    }

    @Test("a call accepted while no sync call waits needs no start mark: a sync call that comes later runs at once or waits for a later call")
    func acceptNotesWaiters() {
        var s = state()
        do {
            let step = s.acceptCallNotingWaiters(id: 1)
            #expect(step.runs && !step.syncCallsWait)
        }
        // After call 1's acceptance: waiting for it (or anything before) runs at once.
        #expect(s.waitForStarted(through: 1, resume: { _ in }) == .started)
        // Waiting for call 2: the acceptance of 2 says a start mark is due, and the mark resumes it.
        let resumed = Mutex<Bool?>(nil)
        #expect(s.waitForStarted(through: 2, resume: { ok in resumed.withLock { $0 = ok } }) == .waiting(key: 0))
        do {
            let step = s.acceptCallNotingWaiters(id: 2)
            #expect(step.runs && step.syncCallsWait)
        }
        for resume in s.markStarted(through: 2) { resume(true) }
        #expect(resumed.withLock { $0 } == true)
        do {
            let step = s.acceptCallNotingWaiters(id: 2)
            #expect(!step.runs, "a resent call ran already")
        }
    }

    @Test("invokes made before dsinit are held, then released in order with rising seq")
    func heldInvokes() {
        var s = state()
        let a = FakeSocket()
        _ = s.attach(a, ack: 0)
        for i in 0..<3 {
            guard case .queued(let id, let appended) = s.startNativeCall(EncodedInvoke(method: "f", args: [.integer(Int64(i))]), handler: { _ in }) else {
                Issue.record("not queued"); return
            }
            #expect(id == Int64(i + 1))
            #expect(appended.wake == nil, "held: nothing to write yet")
        }
        #expect(s.queuedCount == 3)
        do {
            let step = s.takeFrame(for: a)
            #expect(step == nil)
        }
        let readiness = s.markReady()
        #expect(readiness?.released.map(\.callbackId) == [1, 2, 3])
        #expect(readiness?.released.allSatisfy { $0.appended.wake === a } == true)
        do {
            let step = s.markReady()
            #expect(step == nil, "ready once")
        }
        let frame = s.takeFrame(for: a).map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(frame.contains(#""seq":1"#) && frame.contains(#""seq":3"#))
    }

    @Test("held invokes over the replay bound report boundExceeded; an abandoned one gives its bytes back")
    func heldBound() {
        var s = state(maxMessages: 2)
        _ = s.startNativeCall(EncodedInvoke(method: "f", args: []), handler: { _ in })
        _ = s.startNativeCall(EncodedInvoke(method: "f", args: []), handler: { _ in })
        guard case .queued(_, let appended) = s.startNativeCall(EncodedInvoke(method: "f", args: []), handler: { _ in }),
            case .boundExceeded? = appended.error
        else { Issue.record("expected boundExceeded"); return }
        var t = state()
        _ = t.startNativeCall(EncodedInvoke(method: "f", args: []), handler: { _ in })
        #expect(t.heldBytes > 0)
        do {
            let step = t.abandonNativeCall(1)
            #expect(step != nil)
        }
        #expect(t.heldBytes == 0 && t.queuedCount == 0)
        do {
            let step = t.abandonNativeCall(1)
            #expect(step == nil, "once")
        }
    }

    @Test("a too-large invoke uses no callbackId; a too-large ret is replaced by a -1 failure")
    func tooLarge() {
        var s = state(maxBytes: 200)
        let big = EncodedInvoke(method: "f", args: [.string(String(repeating: "x", count: 500))])
        guard case .tooLarge = s.startNativeCall(big, handler: { _ in }) else { Issue.record("expected tooLarge"); return }
        #expect(s.nextCallbackId == 1)
        let a = FakeSocket()
        _ = s.attach(a, ack: 0)
        let appended = s.append(.ret(id: 1, result: .success(.string(String(repeating: "y", count: 500)))))
        #expect(appended.error == .messageTooLarge(bytes: appended.error.map { if case .messageTooLarge(let b) = $0 { b } else { 0 } } ?? 0))
        let frame = s.takeFrame(for: a).map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(frame.contains("result too large"))
    }

    @Test("page answers run on the caller when nothing waits ahead; otherwise one worker takes them in order")
    func answerDelivery() {
        var s = state()
        let h: NativeCallHandler = { _ in }
        do {
            let step = s.deliver(.completed(1), to: h, callerMayRun: true)
            #expect(step == .caller)
        }
        do {
            let step = s.deliver(.completed(2), to: h, callerMayRun: false)
            #expect(step == .newWorker)
        }
        do {
            let step = s.deliver(.completed(3), to: h, callerMayRun: true)
            #expect(step == .runningWorker, "earlier answers wait: keep the order")
        }
        do {
            let step = s.takeAnswers()
            #expect(step.map(\.event) == [.completed(2), .completed(3)])
        }
        do {
            let step = s.takeAnswers()
            #expect(step.isEmpty)
        }
        do {
            let step = s.deliver(.completed(4), to: h, callerMayRun: true)
            #expect(step == .caller, "the worker stopped")
        }
    }

    @Test("the memory deltas count replay, held invokes and sync bodies, and give everything back at the end")
    func memoryCounting() {
        var s = state()
        var budget = 0
        _ = s.startNativeCall(EncodedInvoke(method: "f", args: []), handler: { _ in })
        s.holdSyncBody(100)
        budget += s.takeMemoryDelta()
        #expect(budget == s.heldBytes + 100 && s.heldBytes > 0)
        #expect(s.takeMemoryDelta() == 0, "a delta is taken once")
        _ = s.markReady()
        budget += s.takeMemoryDelta()
        #expect(budget == s.log.keptBytes + 100)
        s.acknowledge(1)
        budget += s.takeMemoryDelta()
        #expect(budget == 100)
        _ = s.end(dropQueued: true)
        budget += s.takeMemoryDelta()
        #expect(budget == 0 && s.counted == 0)
    }
}

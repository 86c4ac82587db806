// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Synchronization
import Testing

/// A synchronous method that waits until the test lets it go (a call "running" on a node).
final class GateInterface: ExposedInterface {
    let release = DispatchSemaphore(value: 0)
    let started = Atomic<Int>(0)

    /// The completion of the last `stream` call, for the test to deliver through.
    let streamCompletion = Mutex<ExposedCompletion?>(nil)

    static var exposedMethods: [String: ExposedMethodKind] { ["wait": .synchronous, "stream": .asynchronous] }

    func callSynchronousMethod(named name: String, with argument: JSONValue) async throws -> JSONValue {
        started.add(1, ordering: .relaxed)
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.release.wait()
                c.resume()
            }
        }
        return argument
    }

    func callAsynchronousMethod(named name: String, with argument: JSONValue, completion: ExposedCompletion) async throws {
        streamCompletion.withLock { $0 = completion }
    }
}

/// The bridge's side of the cluster's write-ahead rules (docs/CLUSTER.md), against an
/// in-memory journal whose writes happen only when the test flushes it.
@Suite("Session journal: write-ahead, takeover, moves")
struct SessionJournalTests {
    /// Two nodes on one journal store.
    struct Cluster {
        let store = JournalStore()
        let journalA: MemoryJournal
        let journalB: MemoryJournal
        let a: BridgeHarness
        let b: BridgeHarness

        init() {
            journalA = MemoryJournal(node: "A", store: store)
            journalB = MemoryJournal(node: "B", store: store)
            let executor = ManualExecutor()
            a = BridgeHarness(executor: executor, journal: journalA)
            b = BridgeHarness(executor: executor, journal: journalB)
        }
    }

    /// Says hello on node `h` of the cluster: the welcome waits for the new session's record,
    /// so the journal writes it first.
    private func hello(_ h: BridgeHarness, _ journal: MemoryJournal) async throws -> JSONValue {
        h.send(["t": "hello", "v": 1])
        journal.flush()
        return try await h.messages(1)[0]
    }

    private func noMessage(_ h: BridgeHarness) async {
        if let m = try? await h.messages(1, timeout: .milliseconds(50)) { Issue.record("unexpected message \(m)") }
    }

    @Test("a call runs only once its acceptance is durable, and its ret goes out only once the ret is durable")
    func writeAhead() async throws {
        let c = Cluster()
        let welcome = try await hello(c.a, c.journalA)
        let token = try #require(welcome["token"]?.stringValue)
        c.a.call(1, "p.record", "x")
        #expect(c.a.probe.started.withLock { $0 }.isEmpty, "not run before the journal holds lastCall")
        let session = try #require(c.a.bridge.session(token: token))
        #expect(c.store.record(session.id)?.lastCall == 0, "only the new session's record so far")
        c.journalA.flush()  // the acceptance: the call runs, its ret is made
        c.a.executor.runUntilIdle()
        #expect(c.a.probe.started.withLock { $0 } == ["x"])
        let record = try #require(c.store.record(session.id))
        #expect(record.lastCall == 1)
        #expect(record.run[1]?.entry == .needsReturn)
        await noMessage(c.a)
        c.journalA.flush()  // the ret
        let ret = try await c.a.messages(1)[0]
        #expect(ret["t"] == "ret" && ret["seq"] == 1 && ret["data"] == "x")
        let after = try #require(c.store.record(session.id))
        #expect(after.run.isEmpty, "a final ret ends the run-table entry")
        #expect(after.lastSeq == 1 && after.messages[1] != nil)
    }

    @Test("a @nonblocking call alone in its frame runs only once its acceptance is durable, and its ret goes out once durable")
    func loneNonblockingCallWaitsForAcceptance() async throws {
        let c = Cluster()
        let probe = NonblockingProbe()
        c.a.bridge.addInterface(probe, by: "n")
        _ = try await hello(c.a, c.journalA)
        c.a.call(1, "n.fast", "x")
        #expect(probe.fastThreads.withLock { $0.isEmpty }, "not run before the journal holds lastCall")
        c.journalA.flush()
        c.a.executor.runUntilIdle()
        #expect(probe.fastThreads.withLock { $0.count } == 1)
        await noMessage(c.a)
        c.journalA.flush()
        let ret = try await c.a.messages(1)[0]
        #expect(ret["t"] == "ret" && ret["id"] == 1 && ret["data"] == "x")
    }

    @Test("a new session's welcome goes out only once its record is durable: any node can resume its token")
    func welcomeWaitsForRecord() async throws {
        let c = Cluster()
        c.a.send(["t": "hello", "v": 1])
        await noMessage(c.a)
        #expect(c.store.records.withLock { $0.isEmpty })
        c.journalA.flush()
        let welcome = try await c.a.messages(1)[0]
        #expect(welcome["t"] == "welcome")
        let token = try #require(welcome["token"]?.stringValue)
        #expect(c.store.records.withLock { $0.values.contains { $0.identity.token == token } })
    }

    @Test("an async call with a stub stays in the run table until its final completion")
    func runTableFollowsCompletions() async throws {
        let c = Cluster()
        let token = try #require(try await hello(c.a, c.journalA)["token"]?.stringValue)
        let id = try #require(c.a.bridge.session(token: token)?.id)
        c.a.call(1, "p.untilCancelled", nil, stub: "dscb1")
        c.journalA.flush()
        c.a.executor.runUntilIdle()
        c.journalA.flush()
        let sent = try await c.a.messages(2)
        #expect(sent.map { $0["t"] } == ["ret", "cb"])
        #expect(c.store.record(id)?.run[1]?.entry == .needsCompletion(stub: "dscb1"))
        c.a.send(["t": "cancel", "id": 1])
        c.journalA.flush()
        let cancelled = try await c.a.messages(1)[0]
        #expect(cancelled["cancelled"] == true)
        #expect(c.store.record(id)?.run.isEmpty == true)
    }

    @Test("another node takes the session over: replays what the page did not acknowledge, numbers on, skips done calls")
    func takeoverReplays() async throws {
        let c = Cluster()
        let token = try #require(try await hello(c.a, c.journalA)["token"]?.stringValue)
        for id in Int64(1)...3 {
            c.a.call(id, "p.value", .integer(id))
            c.journalA.flush()
            c.a.executor.runUntilIdle()
            c.journalA.flush()
        }
        let first = try await c.a.messages(3)
        #expect(first.map { $0["seq"] } == [1, 2, 3])
        c.a.send(["t": "ack", "seq": 1])
        c.journalA.flush()
        c.a.connection.socketClosed()
        c.store.lostNodes.withLock { _ = $0.insert("A") }
        // The page reconnects to B with ack 1.
        c.b.send(["t": "hello", "v": 1, "token": .string(token), "ack": 1])
        let resumed = try await c.b.messages(3)
        #expect(resumed[0]["t"] == "welcome" && resumed[0]["resumed"] == true && resumed[0]["lastCall"] == 3)
        #expect(resumed[1...].map { $0["seq"] } == [2, 3])
        #expect(resumed[1...].map { $0["data"] } == [2, 3])
        // A resent call 3 is dropped; call 4 is numbered after the journal's last seq.
        c.b.call(3, "p.record", "again")
        c.b.call(4, "p.value", 4)
        c.journalB.flush()
        c.b.executor.runUntilIdle()
        c.journalB.flush()
        let next = try await c.b.messages(1)[0]
        #expect(next["id"] == 4 && next["seq"] == 4)
        #expect(c.b.probe.started.withLock { $0 }.isEmpty, "call 3 ran on A: not again")
    }

    @Test("acknowledgements reach the journal lazily, 32 at a time (fewer trims of its log); a resume still replays exactly what the page did not acknowledge")
    func lazyAcknowledgements() async throws {
        let c = Cluster()
        let token = try #require(try await hello(c.a, c.journalA)["token"]?.stringValue)
        let id = try #require(c.a.bridge.session(token: token)?.id)
        for call in Int64(1)...40 {
            c.a.call(call, "p.value", .integer(call))
            c.journalA.flush()
            c.a.executor.runUntilIdle()
            c.journalA.flush()
            let ret = try await c.a.messages(1)[0]
            #expect(ret["seq"] == .integer(call))
            c.a.send(["t": "ack", "seq": .integer(call)])
        }
        c.journalA.flush()
        let record = try #require(c.store.record(id))
        #expect(record.acked == 32, "the acknowledgement of 32 rode with call 33's acceptance; the later ones wait")
        #expect(record.messages.keys.sorted() == Array(33...40), "acknowledged messages 33-40 are kept until the next trim")
        #expect(record.lastCall == 40 && record.lastSeq == 40)
        c.a.connection.socketClosed()
        c.store.lostNodes.withLock { _ = $0.insert("A") }
        c.b.send(["t": "hello", "v": 1, "token": .string(token), "ack": 38])
        let resumed = try await c.b.messages(3)
        #expect(resumed[0]["t"] == "welcome" && resumed[0]["resumed"] == true && resumed[0]["lastCall"] == 40)
        #expect(resumed[1...].map { $0["seq"] } == [39, 40], "only what the page did not acknowledge")
        await noMessage(c.b)
    }

    @Test("a call running on a lost node gets exactly one final error after the takeover")
    func lostNodeCallFails() async throws {
        let c = Cluster()
        let gate = GateInterface()
        c.a.bridge.addInterface(gate, by: "g")
        c.b.bridge.addInterface(gate, by: "g")
        let token = try #require(try await hello(c.a, c.journalA)["token"]?.stringValue)
        c.a.call(1, "g.wait", 1)
        c.journalA.flush()
        c.a.executor.runUntilIdle()
        #expect(await c.a.eventually { gate.started.load(ordering: .relaxed) == 1 })
        c.a.call(2, "p.untilCancelled", nil, stub: "dscb2")
        c.journalA.flush()
        c.a.executor.runUntilIdle()
        c.journalA.flush()
        _ = try await c.a.messages(2)  // ret "" and the first cb of call 2
        c.a.connection.socketClosed()
        c.store.lostNodes.withLock { _ = $0.insert("A") }
        c.b.send(["t": "hello", "v": 1, "token": .string(token), "ack": 2])
        c.journalB.flush()
        let got = try await c.b.messages(3)
        #expect(got[0]["t"] == "welcome" && got[0]["lastCall"] == 2)
        #expect(got[1]["t"] == "ret" && got[1]["id"] == 1 && got[1]["code"] == -1)
        #expect(got[1]["error"]?["message"] == "node A was lost while the call ran")
        #expect(got[2]["t"] == "cb" && got[2]["stub"] == "dscb2" && got[2]["complete"] == true && got[2]["error"] != nil)
        #expect(c.store.record(try #require(c.b.bridge.session(token: token)).id)?.run.isEmpty == true)
        gate.release.signal()
    }

    /// Call 1 of a session runs on A (a `g.wait` held by `gate`) when its page moves to B
    /// (A is alive: draining, or the page reconnected elsewhere). Returns the token and A's
    /// copy of the session.
    private func movedWithRunningCall(_ c: Cluster, _ gate: GateInterface, data: JSONValue) async throws -> (
        token: String, old: BridgeSession
    ) {
        c.a.bridge.addInterface(gate, by: "g")
        let token = try #require(try await hello(c.a, c.journalA)["token"]?.stringValue)
        c.a.call(1, "g.wait", data)
        c.journalA.flush()
        c.a.executor.runUntilIdle()
        #expect(await c.a.eventually { gate.started.load(ordering: .relaxed) == 1 })
        let old = try #require(c.a.bridge.session(token: token))
        c.a.connection.socketClosed()
        c.b.send(["t": "hello", "v": 1, "token": .string(token), "ack": 0])
        #expect(try await c.b.messages(1)[0]["t"] == "welcome")
        return (token, old)
    }

    @Test("a drained node's call finishes after the move: its result reaches the page through the new owner")
    func lateResultAfterMove() async throws {
        let c = Cluster()
        let gate = GateInterface()
        let (token, old) = try await movedWithRunningCall(c, gate, data: "late")
        #expect(old.hasMoved)
        #expect(c.a.bridge.session(token: token) == nil)
        #expect(old.callsRunningHere == 1, "a drain waits for it")
        gate.release.signal()
        #expect(await c.a.eventually { !c.journalA.passed.isEmpty })
        #expect(old.callsRunningHere == 0, "its final answer went to the new owner: the drain need not wait any more")
        c.journalB.flush()
        let ret = try await c.b.messages(1)[0]
        #expect(ret["t"] == "ret" && ret["id"] == 1 && ret["data"] == "late" && ret["seq"] == 1)
        let owned = try #require(c.b.bridge.session(token: token))
        let record = try #require(c.store.record(owned.id))
        #expect(record.run.isEmpty)
        #expect(record.late.isEmpty, "the write that journaled the late ret removed it from the late list")
    }

    @Test("a call left running on a node the session moved from gets its final error when that node is lost")
    func movedFromNodeLostLater() async throws {
        let c = Cluster()
        let gate = GateInterface()
        let (token, _) = try await movedWithRunningCall(c, gate, data: "x")
        let session = try #require(c.b.bridge.session(token: token))
        #expect(c.store.record(session.id)?.run[1]?.node == "A", "A still runs call 1")
        // A dies before it finishes: its entry fails, once (a second report changes nothing).
        session.failCallsOfLostNode("A", calls: [(1, .needsReturn)])
        session.failCallsOfLostNode("A", calls: [(1, .needsReturn)])
        c.journalB.flush()
        let got = try await c.b.messages(1)
        #expect(got[0]["t"] == "ret" && got[0]["code"] == -1 && got[0]["error"]?["message"] == "node A was lost while the call ran")
        await noMessage(c.b)
        #expect(c.store.record(session.id)?.run.isEmpty == true)
        gate.release.signal()
    }

    @Test("a late result of a call already failed as lost is dropped: the call ends once")
    func lateAfterLostIsDropped() async throws {
        let c = Cluster()
        let gate = GateInterface()
        let (token, _) = try await movedWithRunningCall(c, gate, data: "slow")
        let session = try #require(c.b.bridge.session(token: token))
        // A is taken for lost (its beat was late), then its result comes after all.
        session.failCallsOfLostNode("A", calls: [(1, .needsReturn)])
        c.journalB.flush()
        gate.release.signal()
        #expect(await c.a.eventually { !c.journalA.passed.isEmpty })
        c.journalB.flush()
        let got = try await c.b.messages(1)
        #expect(got.count == 1 && got[0]["code"] == -1, "\(got)")
        await noMessage(c.b)
    }

    /// An async call `g.stream` (stub `dscb1`) started on node A, its `ret` delivered, then
    /// the page resumed on B: A still runs the call and passes its completions on.
    private func movedWithStreamingCall(_ c: Cluster, _ gate: GateInterface) async throws -> BridgeSession {
        c.a.bridge.addInterface(gate, by: "g")
        let token = try #require(try await hello(c.a, c.journalA)["token"]?.stringValue)
        c.a.call(1, "g.stream", nil, stub: "dscb1")
        c.journalA.flush()  // the acceptance: the call starts, its ret is made
        c.a.executor.runUntilIdle()
        c.journalA.flush()  // the ret
        #expect(try await c.a.messages(1)[0]["t"] == "ret")
        #expect(await c.a.eventually { gate.streamCompletion.withLock { $0 } != nil })
        c.a.connection.socketClosed()
        c.b.send(["t": "hello", "v": 1, "token": .string(token), "ack": 1])
        #expect(try await c.b.messages(1)[0]["t"] == "welcome")
        return try #require(c.b.bridge.session(token: token))
    }

    @Test("progress of a call still running on the node a session left reaches the page through the new owner")
    func lateProgressAfterMove() async throws {
        let c = Cluster()
        let gate = GateInterface()
        _ = try await movedWithStreamingCall(c, gate)
        let completion = try #require(gate.streamCompletion.withLock { $0 })
        completion.deliver("p1", complete: false)
        completion.deliver("done")
        c.a.executor.runUntilIdle()
        #expect(await c.a.eventually { c.journalA.passed.count >= 2 })
        c.journalB.flush()
        let got = try await c.b.messages(2)
        #expect(got.map { $0["data"] } == ["p1", "done"] && got.map { $0["complete"] } == [false, true], "\(got)")
    }

    @Test("progress of a call already failed as lost is dropped with its final completion: nothing follows the final cb")
    func lateProgressAfterLostIsDropped() async throws {
        let c = Cluster()
        let gate = GateInterface()
        let session = try await movedWithStreamingCall(c, gate)
        // A is taken for lost (its record expired while it was frozen): the call ends here.
        session.failCallsOfLostNode("A", calls: [(1, .needsCompletion(stub: "dscb1"))])
        c.journalB.flush()
        let final = try await c.b.messages(1)[0]
        #expect(final["t"] == "cb" && final["complete"] == true && final["error"]?["message"] == "node A was lost while the call ran")
        // A comes back and its call goes on: progress, then its own final completion.
        let completion = try #require(gate.streamCompletion.withLock { $0 })
        completion.deliver("p1", complete: false)
        completion.deliver("p2", complete: false)
        completion.deliver("done")
        c.a.executor.runUntilIdle()
        #expect(await c.a.eventually { c.journalA.passed.count >= 3 })
        c.journalB.flush()
        await noMessage(c.b)
    }

    @Test("a claim that comes while a write is out moves the session once the write is known, and a call accepted by it still runs")
    func claimDuringWrite() async throws {
        let c = Cluster()
        let token = try #require(try await hello(c.a, c.journalA)["token"]?.stringValue)
        c.journalA.flush()
        let session = try #require(c.a.bridge.session(token: token))
        c.a.call(1, "p.record", "accepted")  // waits for its acceptance
        let batch = try #require(session.takeJournalBatch())
        // Redis holds the batch before B's claim, whose notice reaches A before the reply.
        #expect(c.store.apply(batch, node: "A", epoch: 1) == .written)
        c.b.send(["t": "hello", "v": 1, "token": .string(token), "ack": 0])
        #expect(try await c.b.messages(1)[0]["t"] == "welcome")
        #expect(!session.hasMoved, "a write is out: the move waits for its outcome")
        session.journalWritten(batch, outcome: .written)
        c.a.executor.runUntilIdle()
        #expect(session.hasMoved)
        #expect(c.a.probe.started.withLock { $0 } == ["accepted"], "its acceptance was durable: it ran")
        #expect(await c.a.eventually { !c.journalA.passed.isEmpty })
        c.journalB.flush()
        let ret = try await c.b.messages(1)[0]
        #expect(ret["t"] == "ret" && ret["id"] == 1 && ret["data"] == "accepted")
    }

    @Test("a write fenced by a newer owner drops the waiting calls unrun and closes the socket 4009")
    func fencedWrite() async throws {
        let c = Cluster()
        let token = try #require(try await hello(c.a, c.journalA)["token"]?.stringValue)
        c.a.call(1, "p.value", 1)
        c.journalA.flush()
        c.a.executor.runUntilIdle()
        c.journalA.flush()
        _ = try await c.a.messages(1)
        let id = try #require(c.a.bridge.session(token: token)?.id)
        // Another node claims the session behind A's back (its notice is lost).
        c.store.records.withLock { $0[id]?.epoch += 1 }
        c.a.call(2, "p.record", "never")
        c.journalA.flush()
        c.a.executor.runUntilIdle()
        #expect(c.a.probe.started.withLock { $0 }.isEmpty)
        #expect(try await c.a.closeCode() == 4009)
        #expect(c.a.bridge.session(token: token) == nil)
    }

    @Test("with the journal unreachable the session goes on; when it is back a full snapshot is written")
    func unavailableThenSnapshot() async throws {
        let c = Cluster()
        let token = try #require(try await hello(c.a, c.journalA)["token"]?.stringValue)
        let session = try #require(c.a.bridge.session(token: token))
        c.journalA.setUnavailable(true)
        c.a.call(1, "p.value", 1)
        c.journalA.flush()  // fails: the gate opens
        c.a.executor.runUntilIdle()
        #expect(try await c.a.messages(1)[0]["data"] == 1)
        c.a.call(2, "p.value", 2)
        c.a.executor.runUntilIdle()
        #expect(try await c.a.messages(1)[0]["data"] == 2, "no journal write is awaited meanwhile")
        #expect(c.store.record(session.id)?.lastCall == 0, "nothing written while unreachable")
        c.journalA.setUnavailable(false)
        session.journalReconnected()
        c.journalA.flush()
        let record = try #require(c.store.record(session.id))
        #expect(record.lastCall == 2 && record.lastSeq == 2)
        #expect(record.messages.keys.sorted() == [1, 2])
        #expect(record.run.isEmpty)
        // Journaled again: the next call waits for its acceptance.
        c.a.call(3, "p.record", 3)
        #expect(c.a.probe.started.withLock { $0 }.isEmpty)
        c.journalA.flush()
        c.a.executor.runUntilIdle()
        #expect(c.a.probe.started.withLock { $0 } == [3])
    }

    @Test("a native call made on A is answered through B after the session moved")
    func nativeCallAnswerFollowsTheMove() async throws {
        let c = Cluster()
        let (token, _, answers) = try await pageWithNativeCall(c)
        _ = try await resumeOnB(c, token)
        c.b.call(2, "_dsb.returnValue", ["id": 1, "data": "ok", "complete": true])
        c.journalB.flush()
        c.b.executor.runUntilIdle()
        #expect(await c.a.eventually { answers.withLock { $0 } == [.completed("ok")] })
    }

    @Test("a message held back for the journal wakes its socket once, when the write makes it sendable, not when it is queued")
    func heldMessageWakesSocketOnlyWhenDurable() async throws {
        let c = Cluster()
        let waker = CountingWaker(activity: c.a.executor.activity)
        let page = BridgeHarness(sharing: c.a.bridge, connection: c.a.bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: waker))
        let token = try #require(try await hello(page, c.journalA)["token"]?.stringValue)
        page.call(1, "_dsb.dsinit", nil)
        c.journalA.flush()
        page.executor.runUntilIdle()
        c.journalA.flush()
        _ = try await page.messages(1)
        let session = try #require(c.a.bridge.session(token: token))
        let before = waker.wakes.load(ordering: .relaxed)
        session.callJavaScript("f", args: [1]) { _ in }
        #expect(waker.wakes.load(ordering: .relaxed) == before, "nothing to send until the journal holds the invoke")
        #expect(page.connection.nextAction() == nil)
        c.journalA.flush()
        #expect(waker.wakes.load(ordering: .relaxed) == before + 1, "the write makes the invoke sendable: one wake")
        let invoke = try await page.messages(1)[0]
        #expect(invoke["t"] == "invoke" && invoke["method"] == "f")
    }

    @Test("a session that ends on its node deletes its journal records; one that moved does not")
    func endingForgetsRecords() async throws {
        let c = Cluster()
        let token = try #require(try await hello(c.a, c.journalA)["token"]?.stringValue)
        c.a.call(1, "p.value", 1)
        c.journalA.flush()
        c.a.executor.runUntilIdle()
        c.journalA.flush()
        let session = try #require(c.a.bridge.session(token: token))
        #expect(c.store.record(session.id) != nil)
        c.a.call(2, "_dsb.closePage", nil)
        c.journalA.flush()
        c.a.executor.runUntilIdle()
        #expect(c.journalA.ended == [session.id])
        #expect(c.store.record(session.id) == nil)
    }

    /// The answers a native call's handler got.
    final class Answers: Sendable {
        private let events = Mutex<[NativeCallEvent]>([])
        func append(_ e: NativeCallEvent) { events.withLock { $0.append(e) } }
        func withLock<T>(_ body: ([NativeCallEvent]) -> T) -> T { events.withLock { body($0) } }
    }

    /// A ready page on node A with native call `f` sent to it (callbackId 1).
    /// The page of ``pageWithNativeCall(_:)`` leaves A and resumes on B with `ack` 1.
    /// - Returns: the welcome and the replayed invoke (checked to be one).
    private func resumeOnB(_ c: Cluster, _ token: String) async throws -> [JSONValue] {
        c.a.connection.socketClosed()
        c.b.send(["t": "hello", "v": 1, "token": .string(token), "ack": 1])
        let resumed = try await c.b.messages(2)
        #expect(resumed[1]["t"] == "invoke", "the unacknowledged invoke is replayed")
        return resumed
    }

    private func pageWithNativeCall(_ c: Cluster) async throws -> (token: String, session: BridgeSession, answers: Answers) {
        let token = try #require(try await hello(c.a, c.journalA)["token"]?.stringValue)
        c.a.call(1, "_dsb.dsinit", nil)
        c.journalA.flush()
        c.a.executor.runUntilIdle()
        c.journalA.flush()
        _ = try await c.a.messages(1)
        let session = try #require(c.a.bridge.session(token: token))
        let answers = Answers()
        session.callJavaScript("f", args: [1]) { e in answers.append(e) }
        c.journalA.flush()
        let invoke = try await c.a.messages(1)[0]
        #expect(invoke["t"] == "invoke" && invoke["callbackId"] == 1)
        return (token, session, answers)
    }

    @Test("a page's final answer to a native call reaches the caller without waiting for the journal; its acceptance and ret are written next")
    func finalAnswerRunsAhead() async throws {
        let c = Cluster()
        let (_, session, answers) = try await pageWithNativeCall(c)
        c.a.call(2, "_dsb.returnValue", ["id": 1, "data": "ok", "complete": true])
        c.a.executor.runUntilIdle()
        #expect(await c.a.eventually { answers.withLock { $0 } == [.completed("ok")] }, "no journal round before the answer")
        #expect(c.store.record(session.id)?.lastCall == 1, "not written yet")
        await noMessage(c.a)  // its ret waits for the journal (rule 2)
        c.journalA.flush()
        let ret = try await c.a.messages(1)[0]
        #expect(ret["t"] == "ret" && ret["id"] == 2)
        let record = try #require(c.store.record(session.id))
        #expect(record.lastCall == 2 && record.run.isEmpty && record.nativeCalls.isEmpty)
    }

    @Test("an @idempotent call runs before its acceptance is durable; its ret goes out with the write that carries both")
    func idempotentCallRunsAhead() async throws {
        let c = Cluster()
        let welcome = try await hello(c.a, c.journalA)
        let token = try #require(welcome["token"]?.stringValue)
        let session = try #require(c.a.bridge.session(token: token))
        c.a.call(1, "p.same", "x")
        c.a.executor.runUntilIdle()
        #expect(await c.a.eventually { c.a.probe.started.withLock { $0 } == ["x"] }, "no journal round before it runs")
        #expect(c.store.record(session.id)?.lastCall == 0, "not written yet")
        await noMessage(c.a)  // its ret waits for the journal (rule 2)
        c.journalA.flush()
        let ret = try await c.a.messages(1)[0]
        #expect(ret["t"] == "ret" && ret["id"] == 1 && ret["data"] == "x")
        let record = try #require(c.store.record(session.id))
        #expect(record.lastCall == 1 && record.run.isEmpty && record.lastSeq == 1)
    }

    @Test("an @idempotent call that ran ahead on a node the session left before its acceptance was written is answered once, by its run on the new owner")
    func idempotentCallAfterMoveAnsweredOnce() async throws {
        let c = Cluster()
        let token = try #require(try await hello(c.a, c.journalA)["token"]?.stringValue)
        let session = try #require(c.a.bridge.session(token: token))
        c.a.call(1, "p.same", "x")
        c.a.executor.runUntilIdle()
        #expect(await c.a.eventually { c.a.probe.started.withLock { $0 } == ["x"] })
        // A's write of call 1 (its acceptance and ret) is out when B claims the session:
        // B's journal says lastCall 0, so the page sends call 1 again and it runs on B.
        let batch = try #require(session.takeJournalBatch())
        c.b.send(["t": "hello", "v": 1, "token": .string(token), "ack": 0])
        let welcome = try await c.b.messages(1)[0]
        #expect(welcome["resumed"] == true && welcome["lastCall"] == 0)
        c.b.call(1, "p.sameLater", "x", stub: "s1")
        c.b.executor.runUntilIdle()
        #expect(await c.b.eventually { c.b.probe.started.withLock { $0 } == ["x"] })
        c.journalB.flush()
        let ret = try await c.b.messages(1)[0]
        #expect(ret["t"] == "ret" && ret["id"] == 1, "B's run: its ret, its completion to follow")
        // A's write is fenced while B's run is still open: A's answer to call 1 must not
        // reach B as a late message (B would send it as a second ret of call 1).
        #expect(c.store.apply(batch, node: "A", epoch: 1) == .moved)
        session.journalWritten(batch, outcome: .moved)
        c.a.executor.runUntilIdle()
        c.journalB.flush()
        c.b.executor.runUntilIdle()
        c.journalB.flush()
        try await Task.sleep(for: .milliseconds(60))  // B's run completes
        c.b.executor.runUntilIdle()
        c.journalB.flush()
        let cb = try await c.b.messages(1)[0]
        #expect(cb["t"] == "cb" && cb["stub"] == "s1" && cb["data"] == "x", "\(cb)")
        c.b.executor.runUntilIdle()
        c.journalB.flush()
        await noMessage(c.b)
    }

    @Test("an @idempotent call behind one that waits for the journal waits too: the session's calls keep their order")
    func idempotentCallKeepsOrder() async throws {
        let c = Cluster()
        _ = try await hello(c.a, c.journalA)
        c.a.call(1, "p.record", "a")
        c.a.call(2, "p.same", "b")
        c.a.executor.runUntilIdle()
        await noMessage(c.a)
        #expect(c.a.probe.started.withLock { $0 }.isEmpty, "neither runs before the first one's acceptance")
        c.journalA.flush()
        c.a.executor.runUntilIdle()
        #expect(await c.a.eventually { c.a.probe.started.withLock { $0 } == ["a", "b"] })
    }

    @Test("a progress answer, and a final one behind it, run ahead of their acceptance for a call of this node: the caller sees them in order, once")
    func progressAnswerRunsAhead() async throws {
        let c = Cluster()
        let (_, _, answers) = try await pageWithNativeCall(c)
        c.a.call(2, "_dsb.returnValue", ["id": 1, "data": "p", "complete": false])
        c.a.call(3, "_dsb.returnValue", ["id": 1, "data": "ok", "complete": true])
        c.a.executor.runUntilIdle()
        #expect(await c.a.eventually { answers.withLock { $0 } == [.progress("p"), .completed("ok")] })
        c.journalA.flush()
        c.a.executor.runUntilIdle()
        #expect(answers.withLock { $0 } == [.progress("p"), .completed("ok")], "once each")
    }

    @Test("a final answer that ran ahead and is resent after the session moved reaches the caller once")
    func finalAnswerResentAfterMoveReachesCallerOnce() async throws {
        let c = Cluster()
        let (token, _, answers) = try await pageWithNativeCall(c)
        c.a.call(2, "_dsb.returnValue", ["id": 1, "data": "ok", "complete": true])
        c.a.executor.runUntilIdle()
        #expect(await c.a.eventually { answers.withLock { $0 } == [.completed("ok")] })
        // The page moves to B before A wrote the answer's acceptance: the journal's lastCall
        // is 1, so the page resends call 2 there; B passes the answer to its origin on A.
        let resumed = try await resumeOnB(c, token)
        #expect(resumed[0]["resumed"] == true && resumed[0]["lastCall"] == 1)
        c.journalA.flush()
        c.a.executor.runUntilIdle()
        c.b.call(2, "_dsb.returnValue", ["id": 1, "data": "ok", "complete": true])
        c.journalB.flush()
        c.b.executor.runUntilIdle()
        c.journalB.flush()
        let ret = try await c.b.messages(1)[0]
        #expect(ret["t"] == "ret" && ret["id"] == 2)
        await noMessage(c.b)
        c.a.executor.runUntilIdle()
        #expect(answers.withLock { $0 } == [.completed("ok")], "the caller saw the final answer once")
    }

    @Test("answers for a call made on another node go there with the write of their acceptance, not before it, in order, once")
    func answersForAnotherNodeGoWithTheirAcceptance() async throws {
        let c = Cluster()
        let (token, _, answers) = try await pageWithNativeCall(c)
        let resumed = try await resumeOnB(c, token)
        c.b.call(2, "_dsb.returnValue", ["id": 1, "data": "p1", "complete": false])
        c.b.call(3, "_dsb.returnValue", ["id": 1, "data": "p2", "complete": false])
        c.b.executor.runUntilIdle()
        c.a.executor.runUntilIdle()
        #expect(answers.withLock { $0 }.isEmpty, "the run on B passes nothing: the write does (issue 48)")
        c.journalB.flush()
        c.a.executor.runUntilIdle()
        #expect(await c.a.eventually { answers.withLock { $0 } == [.progress("p1"), .progress("p2")] })
        c.b.call(4, "_dsb.returnValue", ["id": 1, "data": "ok", "complete": true])
        c.b.executor.runUntilIdle()
        c.journalB.flush()
        c.a.executor.runUntilIdle()
        #expect(await c.a.eventually { answers.withLock { $0 } == [.progress("p1"), .progress("p2"), .completed("ok")] })
        #expect(c.store.record(resumed[0]["session"]?.stringValue ?? "")?.nativeCalls.isEmpty == true, "the call left the journal")
    }

    @Test("a progress answer resent after the session moved (its write on the old node was not made) reaches the caller once")
    func progressResentAfterMoveReachesCallerOnce() async throws {
        let c = Cluster()
        let (token, _, answers) = try await pageWithNativeCall(c)
        c.a.call(2, "_dsb.returnValue", ["id": 1, "data": "p", "complete": false])
        c.a.executor.runUntilIdle()
        #expect(await c.a.eventually { answers.withLock { $0 } == [.progress("p")] }, "a call of this node: delivered at once")
        let resumed = try await resumeOnB(c, token)
        #expect(resumed[0]["lastCall"] == 1, "A never wrote the answer's acceptance")
        c.journalA.flush()
        c.b.call(2, "_dsb.returnValue", ["id": 1, "data": "p", "complete": false])
        c.b.call(3, "_dsb.returnValue", ["id": 1, "data": "ok", "complete": true])
        c.b.executor.runUntilIdle()
        c.journalB.flush()
        c.b.executor.runUntilIdle()
        c.a.executor.runUntilIdle()
        #expect(await c.a.eventually { answers.withLock { $0 }.count == 2 })
        #expect(answers.withLock { $0 } == [.progress("p"), .completed("ok")], "the resent progress answer was dropped at its origin")
    }

    @Test("a page whose node is lost right after its dsinit was accepted is ready on the new owner: held and new native calls reach it")
    func readyAcceptedThenNodeLost() async throws {
        let c = Cluster()
        let token = try #require(try await hello(c.a, c.journalA)["token"]?.stringValue)
        let session = try #require(c.a.bridge.session(token: token))
        session.callJavaScript("held", args: [1]) { _ in }  // held until dsinit
        c.journalA.flush()
        c.a.call(1, "_dsb.dsinit", nil)
        c.journalA.flush()  // its acceptance is written; A is lost before dsinit runs there
        c.a.connection.socketClosed()
        c.store.lostNodes.withLock { _ = $0.insert("A") }
        c.b.send(["t": "hello", "v": 1, "token": .string(token), "ack": 0])
        c.journalB.flush()
        c.b.executor.runUntilIdle()
        c.journalB.flush()
        let got = try await c.b.messages(3)
        #expect(got[0]["t"] == "welcome" && got[0]["lastCall"] == 1)
        #expect(got[1]["t"] == "ret" && got[1]["id"] == 1 && got[1]["code"] == -1, "dsinit was running on the lost node")
        #expect(got[2]["t"] == "invoke" && got[2]["method"] == "held", "the held invoke goes out: the page is ready")
        let moved = try #require(c.b.bridge.session(token: token))
        moved.callJavaScript("later", args: [2]) { _ in }
        c.journalB.flush()
        let later = try await c.b.messages(1)[0]
        #expect(later["t"] == "invoke" && later["method"] == "later")
    }

    @Test("a full snapshot written after dsinit was accepted and before it ran keeps the page ready in the journal")
    func snapshotKeepsAcceptedReadiness() async throws {
        let c = Cluster()
        let token = try #require(try await hello(c.a, c.journalA)["token"]?.stringValue)
        let session = try #require(c.a.bridge.session(token: token))
        c.a.call(1, "_dsb.dsinit", nil)
        c.journalA.flush()
        #expect(c.store.record(session.id)?.ready == true, "written with its acceptance")
        session.journalReconnected()  // Redis came back: a full snapshot before dsinit ran here
        c.journalA.flush()
        #expect(c.store.record(session.id)?.ready == true)
    }
}

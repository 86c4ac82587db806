// SPDX-License-Identifier: MIT
import Dispatch
import Glibc
import Synchronization
import Testing

@testable import DSBridge

/// Hand-written like `@Exposed` output with `@nonblocking` on `fast`, `slow`, `start` and
/// `holdsNetworkThread`; `waits` is an ordinary synchronous method.
final class NonblockingProbe: ExposedInterface {
    /// The thread each `fast` call ran on.
    let fastThreads = Mutex<[pthread_t]>([])
    /// `waits` returns "released" when the test signals this before 2 s pass.
    let release = DispatchSemaphore(value: 0)
    /// How long `slow` sleeps, in microseconds.
    let slowMicros = Atomic<UInt32>(3_000)

    static var exposedMethods: [String: ExposedMethodKind] {
        [
            "fast": .synchronous, "slow": .synchronous, "waits": .synchronous, "start": .asynchronous, "spin": .synchronous,
            "yields": .synchronous, "who": .synchronous,
        ]
    }
    static var nonblockingMethods: Set<String> { ["fast", "slow", "start", "spin", "who"] }
    /// The thread each `spin` call ran on.
    let spinThreads = Mutex<[pthread_t]>([])

    func callSynchronousMethod(named name: String, with argument: JSONValue) async throws -> JSONValue {
        if name == "yields" {  // suspends once, so it ends on another thread
            await Task.yield()
            return argument
        }
        guard let value = try callSynchronousMethodWithoutSuspending(named: name, with: argument) else {
            throw ExposedCallError.methodNotFound(name)
        }
        return value
    }

    func callSynchronousMethodWithoutSuspending(named name: String, with argument: JSONValue) throws -> JSONValue? {
        switch name {
        case "fast":
            fastThreads.withLock { $0.append(pthread_self()) }
            return argument
        case "who":  // the calling session, as the method sees it
            return BridgeSession.current.map { .string($0.id) } ?? .null
        case "slow":
            usleep(slowMicros.load(ordering: .relaxed))
            return "slept"
        case "spin":  // 400 µs of work: within the budget alone, not five in a row
            let end = DispatchTime.now().uptimeNanoseconds + 400_000
            while DispatchTime.now().uptimeNanoseconds < end {}
            spinThreads.withLock { $0.append(pthread_self()) }
            return argument
        case "waits":
            return release.wait(timeout: .now() + .seconds(2)) == .success ? "released" : "timed out"
        default:
            return nil
        }
    }

    func callAsynchronousMethod(named name: String, with argument: JSONValue, completion: ExposedCompletion) async throws {
        guard try callAsynchronousMethodWithoutSuspending(named: name, with: argument, completion: completion) else {
            throw ExposedCallError.methodNotFound(name)
        }
    }

    func callAsynchronousMethodWithoutSuspending(named name: String, with argument: JSONValue, completion: ExposedCompletion) throws -> Bool {
        guard name == "start" else { return false }
        completion(1, complete: false)
        completion(2, complete: true)
        return true
    }
}

@Suite("Calls the network thread runs itself (@nonblocking)")
struct InlineDispatchTests {
    /// A harness with `NonblockingProbe` under namespace `n`, past its hello.
    private func harness(_ probe: NonblockingProbe = NonblockingProbe()) async throws -> BridgeHarness {
        let h = BridgeHarness(realWorkers: true)
        h.bridge.addInterface(probe, by: "n")
        _ = try await h.hello()
        return h
    }

    @Test("a @nonblocking method runs on the thread that hands over the frame, answered before receive returns")
    func runsOnReceivingThread() async throws {
        let probe = NonblockingProbe()
        let h = try await harness(probe)
        let thread = pthread_self()
        h.call(1, "n.fast", "x")
        let answered = h.connection.nextAction()  // no waiting: the answer is already queued
        #expect(probe.fastThreads.withLock { $0.map { pthread_equal($0, thread) != 0 } } == [true])
        guard case .write(let bytes)? = answered else {
            Issue.record("no answer queued when receive returned")
            return
        }
        let ret = try JSONParser.parse(bytes)
        #expect(ret["t"] == "ret" && ret["id"] == 1 && ret["data"] == "x")
    }

    @Test("BridgeSession.current names the caller's session, bound once for a read's frames or per call, and no other session's")
    func currentSessionOncePerRead() async throws {
        let probe = NonblockingProbe()
        let h = try await harness(probe)
        let other = BridgeHarness(sharing: h.bridge, connection: h.bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: CountingWaker()))
        _ = try await other.hello()
        let mine = h.connection.session.map { JSONValue.string($0.id) }
        let theirs = other.connection.session.map { JSONValue.string($0.id) }
        #expect(mine != nil && theirs != nil && mine != theirs)
        h.connection.receivingFrames {
            h.call(1, "n.who", nil)
            h.call(2, "n.who", nil)
            // A call of another session run meanwhile binds its own.
            other.call(1, "n.who", nil)
        }
        h.call(3, "n.who", nil)  // outside a read's binding: bound for the call
        #expect(BridgeSession.current == nil, "nothing stays bound after the read")
        #expect(try await h.messages(3).map { $0["data"] } == [mine, mine, mine])
        #expect(try await other.messages(1).map { $0["data"] } == [theirs])
    }

    @Test("an ordinary synchronous method never runs on the receiving thread")
    func ordinaryMethodRunsOnWorker() async throws {
        let probe = NonblockingProbe()
        let h = try await harness(probe)
        h.call(1, "n.waits", nil)  // run inline, it would wait 2 s here and answer "timed out"
        probe.release.signal()
        let ret = try await h.messages(1)[0]
        #expect(ret["data"] == "released")
    }

    @Test("a frame mixing @nonblocking and ordinary calls runs on a worker, in order")
    func mixedFrameKeepsOrder() async throws {
        let probe = NonblockingProbe()
        let h = try await harness(probe)
        let thread = pthread_self()
        h.send(
            .array([
                ["t": "call", "id": 1, "method": "n.fast", "arg": ["data": 1]],
                ["t": "call", "id": 2, "method": "n.waits"],
                ["t": "call", "id": 3, "method": "n.fast", "arg": ["data": 3]],
            ]))
        // Checked before this thread suspends (a worker could use it afterwards).
        #expect(probe.fastThreads.withLock { $0.allSatisfy { pthread_equal($0, thread) == 0 } })
        probe.release.signal()
        let answers = try await h.messages(3)
        #expect(answers.map { $0["id"] } == [1, 2, 3])
        #expect(answers[1]["data"] == "released")
    }

    @Test("a @nonblocking method seen overrunning the budget three times is moved off the network thread for good")
    func overrunDemotes() async throws {
        let probe = NonblockingProbe()
        let h = try await harness(probe)
        let name = try #require(MethodName("n.slow"))
        #expect(h.bridge.registry.nonblockingSource(of: name) != nil)
        // The first overrun starts a closer look; each later one that is seen sleeping is a
        // strike; the third strike demotes.
        for id in 1...4 {
            #expect(h.bridge.registry.nonblockingSource(of: name) != nil, "still @nonblocking before call \(id)")
            h.call(Int64(id), "n.slow", nil)
            #expect(try await h.messages(1)[0]["data"] == "slept")
        }
        #expect(h.bridge.registry.nonblockingSource(of: name) == nil, "seen sleeping 3 ms against a 1 ms budget, 3 times")
        #expect(h.bridge.registry.nonblockingSource(of: try #require(MethodName("n.fast"))) != nil, "others keep it")
        h.call(5, "n.slow", nil)
        #expect(try await h.messages(1)[0]["data"] == "slept", "still callable, off the network thread")
    }

    @Test("a @nonblocking completion method delivers its progress and final value before receive returns")
    func asynchronousMethodInline() async throws {
        let h = try await harness()
        h.call(1, "n.start", nil, stub: "cb1")
        var frames: [JSONValue] = []
        while case .write(let bytes)? = h.connection.nextAction() {
            let v = try JSONParser.parse(bytes)
            if case .array(let items) = v { frames += items } else { frames.append(v) }
        }
        #expect(frames.map { $0["t"] } == ["ret", "cb", "cb"])
        #expect(frames.last?["data"] == 2 && frames.last?["complete"] == true)
    }

    @Test("internal calls that run application hooks stay off the network thread; lookups do not")
    func internalMethods() async throws {
        let readyThreads = Mutex<[pthread_t]>([])
        let bridge = Bridge(
            lifecycle: SessionLifecycle(ready: { _ in
                readyThreads.withLock { $0.append(pthread_self()) }
            }))
        let h = BridgeHarness(sharing: bridge, connection: bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: CountingWaker()))
        _ = try await h.hello()
        h.call(1, "_dsb.hasNativeMethod", ["name": "nothing", "type": "all"])
        guard case .write(let bytes)? = h.connection.nextAction() else {
            Issue.record("hasNativeMethod was not answered at once")
            return
        }
        #expect(try JSONParser.parse(bytes)["data"] == false)
        let thread = pthread_self()
        h.call(2, "_dsb.dsinit", nil)
        #expect(readyThreads.withLock { $0.allSatisfy { pthread_equal($0, thread) == 0 } }, "the ready hook did not run on this thread")
        #expect(try await h.messages(1)[0]["id"] == 2)
        #expect(readyThreads.withLock { $0.count } == 1)
    }

    @Test("a per-session interface is made on a worker; later @nonblocking calls run inline")
    func factoryMadeOffThread() async throws {
        let made = Mutex<[pthread_t]>([])
        let probe = NonblockingProbe()
        let h = BridgeHarness(realWorkers: true)
        h.bridge.addInterfaceFactory(by: "f") { _ in
            made.withLock { $0.append(pthread_self()) }
            return probe
        }
        _ = try await h.hello()
        let thread = pthread_self()
        h.call(1, "f.fast", 1)
        #expect(made.withLock { $0.allSatisfy { pthread_equal($0, thread) == 0 } }, "the factory did not run on this thread")
        #expect(try await h.messages(1)[0]["data"] == 1)
        #expect(made.withLock { $0.count } == 1)
        let second = pthread_self()
        h.call(2, "f.fast", 2)
        #expect(probe.fastThreads.withLock { $0.count == 2 && pthread_equal($0[1], second) != 0 })
        #expect(try await h.messages(1)[0]["data"] == 2)
    }

    @Test("a frame larger than the inline limit runs on a worker")
    func largeFrameOffThread() async throws {
        let probe = NonblockingProbe()
        let h = try await harness(probe)
        let big = JSONValue.string(String(repeating: "a", count: InlineDispatchPolicy.maxFrameBytes))
        let thread = pthread_self()
        h.call(1, "n.fast", big)
        #expect(probe.fastThreads.withLock { $0.allSatisfy { pthread_equal($0, thread) == 0 } })
        #expect(try await h.messages(1)[0]["data"] == big)
        #expect(probe.fastThreads.withLock { $0.count } == 1)
    }

    @Test("an overrun is blamed on the method only when it blocked or computed past the budget")
    func overrunVerdicts() {
        typealias G = NetworkThreadGuard
        let budget: Int64 = 1_000_000
        let start = G.Usage(cpuNanoseconds: 5_000_000, voluntarySwitches: 10)
        #expect(G.verdict(wallNanoseconds: 900_000, budget: budget, before: start, after: start) == .withinBudget)
        #expect(G.verdict(wallNanoseconds: 4_000_000, budget: budget, before: nil, after: nil) == .unexplainedOverrun)
        let preempted = G.Usage(cpuNanoseconds: 5_050_000, voluntarySwitches: 10)
        #expect(G.verdict(wallNanoseconds: 4_000_000, budget: budget, before: start, after: preempted) == .unexplainedOverrun)
        let slept = G.Usage(cpuNanoseconds: 5_010_000, voluntarySwitches: 11)
        #expect(G.verdict(wallNanoseconds: 3_000_000, budget: budget, before: start, after: slept) == .overran(blocked: true))
        let computed = G.Usage(cpuNanoseconds: 7_000_000, voluntarySwitches: 10)
        #expect(G.verdict(wallNanoseconds: 2_100_000, budget: budget, before: start, after: computed) == .overran(blocked: false))
    }

    /// A page that said dsinit, on a bridge with real worker threads, and its session.
    private func readyPage() async throws -> (BridgeHarness, BridgeSession) {
        let h = BridgeHarness(realWorkers: true)
        let welcome = try await h.hello()
        h.call(1, "_dsb.dsinit", nil)
        _ = try await h.messages(1)
        return (h, try #require(h.bridge.session(token: welcome["token"]?.stringValue ?? "")))
    }

    @Test("page answers are taken on the network thread; their handlers run on a worker, in the page's order")
    func returnValueHandlersOffThread() async throws {
        let (h, session) = try await readyPage()
        let seen = Mutex<[(value: Int64, thread: pthread_t)]>([])
        let id = session.callJavaScript("count") { event in
            if case .progress(let v) = event { seen.withLock { $0.append((v.integerValue ?? -1, pthread_self())) } }
            if case .completed(let v) = event { seen.withLock { $0.append((v.integerValue ?? -1, pthread_self())) } }
        }
        _ = try await h.messages(1)
        let thread = pthread_self()
        for v in 0..<50 {
            h.call(Int64(2 + v), "_dsb.returnValue", ["id": .integer(id ?? 0), "data": .integer(Int64(v)), "complete": .bool(v == 49)])
            // Each answer's ret is queued before receive returns.
            guard case .write? = h.connection.nextAction() else {
                Issue.record("returnValue \(v) was not answered at once")
                return
            }
        }
        #expect(seen.withLock { $0.allSatisfy { pthread_equal($0.thread, thread) == 0 } })
        #expect(await h.eventually { seen.withLock { $0.count } == 50 })
        #expect(seen.withLock { $0.map(\.value) } == Array(0..<50))
    }

    @Test("answers of a call made for another node (a handler that only passes them on) run on the network thread, in order")
    func forwardedAnswersRunInline() async throws {
        let (h, session) = try await readyPage()
        let seen = Mutex<[(value: Int64, thread: pthread_t)]>([])
        let record: NativeCallHandler = { event in
            switch event {
            case .progress(let v), .completed(let v): seen.withLock { $0.append((v.integerValue ?? -1, pthread_self())) }
            case .failed: seen.withLock { $0.append((-1, pthread_self())) }
            }
        }
        let id = session.callJavaScript("count", args: [], timeout: nil, origin: "other|7", answersInline: true, handler: record)
        _ = try await h.messages(1)
        let thread = pthread_self()
        for v in 0..<20 {
            h.call(Int64(2 + v), "_dsb.returnValue", ["id": .integer(id ?? 0), "data": .integer(Int64(v)), "complete": .bool(v == 19)])
        }
        #expect(seen.withLock { $0.count } == 20, "each answer was passed on before receive returned")
        #expect(seen.withLock { $0.allSatisfy { pthread_equal($0.thread, thread) != 0 } })
        #expect(seen.withLock { $0.map(\.value) } == Array(0..<20))
    }

    @Test("a sync HTTP call of a @nonblocking method is answered on the network thread; others go to a worker")
    func syncHTTPCallOnNetworkThread() async throws {
        let probe = NonblockingProbe()
        let h = BridgeHarness(realWorkers: true)
        h.bridge.addInterface(probe, by: "n")
        let welcome = try await h.hello()
        let token = try #require(welcome["token"]?.stringValue)
        guard
            case .answered(.success(let value)) = h.bridge.startSyncCall(
                token: token, request: SyncCallRequest(method: "n.fast", arg: ["data": 5], after: 0))
        else {
            Issue.record("n.fast was not answered at once")
            return
        }
        #expect(value == 5)
        guard
            case .needsWorker(let waits) = h.bridge.startSyncCall(
                token: token, request: SyncCallRequest(method: "n.waits", arg: nil, after: 0))
        else {
            Issue.record("an ordinary method ran on the network thread")
            return
        }
        probe.release.signal()
        #expect(try await h.bridge.finishSyncCall(waits).get() == "released")
        // Socket call 7 has not arrived: the call must wait for it, on a worker.
        guard
            case .needsWorker(let ordered) = h.bridge.startSyncCall(
                token: token, request: SyncCallRequest(method: "n.fast", arg: ["data": 1], after: 7))
        else {
            Issue.record("a call ordered after socket call 7 did not wait")
            return
        }
        h.call(7, "n.fast", 0)
        #expect(try await h.bridge.finishSyncCall(ordered).get() == 1)
        guard case .unknownToken = h.bridge.startSyncCall(token: "nope", request: SyncCallRequest(method: "n.fast", arg: nil, after: 0)) else {
            Issue.record("an unknown token was accepted")
            return
        }
    }

    @Test("a frame of quick calls that adds up past the budget hands the rest to a worker, in order")
    func frameBudget() async throws {
        let probe = NonblockingProbe()
        let h = try await harness(probe)
        let thread = pthread_self()
        h.send(.array((1...6).map { i in ["t": "call", "id": .integer(Int64(i)), "method": "n.spin", "arg": ["data": .integer(Int64(i))]] }))
        let onThisThread = probe.spinThreads.withLock { $0.filter { pthread_equal($0, thread) != 0 }.count }
        #expect(onThisThread >= 1 && onThisThread < 6, "ran \(onThisThread) of 6 inline")
        let answers = try await h.messages(6)
        #expect(answers.map { $0["data"] } == [1, 2, 3, 4, 5, 6])
        #expect(h.bridge.registry.nonblockingSource(of: try #require(MethodName("n.spin"))) != nil, "no single call overran")
    }

    @Test("a frame's inline routes are found by message index, for one call and for a batch")
    func inlineRoutesByIndex() {
        func failure(_ n: Int) -> Result<CallRoute, CallFailure> { .failure(CallFailure(.methodNotFound, "route \(n)")) }
        func message(_ route: Result<CallRoute, CallFailure>?) -> String? {
            if case .failure(let f)? = route { return f.message }
            return nil
        }
        var one = InlineRoutes()
        one.append(failure(2), at: 2)
        #expect(message(one.route(at: 2)) == "route 2")
        #expect(one.route(at: 0) == nil && one.route(at: 3) == nil)
        var batch = InlineRoutes()
        let indices = [1, 3, 4, 7, 8, 12, 30]
        for i in indices { batch.append(failure(i), at: i) }
        for i in 0...31 {
            #expect(message(batch.route(at: i)) == (indices.contains(i) ? "route \(i)" : nil), "index \(i)")
        }
        #expect(InlineRoutes().route(at: 0) == nil)
    }
}

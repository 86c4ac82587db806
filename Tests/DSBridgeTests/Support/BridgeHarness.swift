// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Synchronization

/// A waker that counts, and signals `activity` so a test waiting for output wakes.
final class CountingWaker: ConnectionWaker {
    let wakes = Atomic<Int>(0)
    let activity: Activity
    init(activity: Activity = Activity()) { self.activity = activity }
    func wake() {
        wakes.add(1, ordering: .relaxed)
        activity.signal()
    }
}

/// An interface with one method per behaviour the dispatcher must handle.
final class ProbeInterface: ExposedInterface {
    /// The order in which `record` calls started.
    let started = Mutex<[JSONValue]>([])

    static var exposedMethods: [String: ExposedMethodKind] {
        [
            "value": .synchronous, "void": .synchronous, "null": .synchronous, "throws": .synchronous, "record": .synchronous,
            "twice": .asynchronous, "throwsFirst": .asynchronous, "later": .asynchronous, "int": .synchronous,
            "untilCancelled": .asynchronous, "completesOnCancel": .asynchronous, "same": .synchronous,
            "sameLater": .asynchronous,
        ]
    }

    /// `same` records like `record`, and `sameLater` answers like `later` (after recording),
    /// but both say a second run shows nothing more.
    static var idempotentMethods: Set<String> { ["same", "sameLater"] }

    struct Boom: Error {}

    func callSynchronousMethod(named name: String, with argument: JSONValue) async throws -> JSONValue {
        switch name {
        case "value": return argument
        case "void": return ExposedResult.void
        case "null": return .null
        case "throws": throw Boom()
        case "int": return try ExposedResult.encode(ExposedArgument.decode(Int.self, from: argument, method: name) + 1)
        case "record", "same":
            started.withLock { $0.append(argument) }
            return argument
        default: throw ExposedCallError.methodNotFound(name)
        }
    }

    func callAsynchronousMethod(named name: String, with argument: JSONValue, completion: ExposedCompletion) async throws {
        switch name {
        case "twice":
            completion(1, complete: false)
            completion(2, complete: true)
            completion(3, complete: true)  // after the final one: ignored
        case "throwsFirst":
            throw Boom()
        case "untilCancelled":
            completion("started", complete: false)
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                completion("saw cancellation", complete: true)  // dropped: the call already ended
                throw error
            }
        case "completesOnCancel":
            // Completes from its cancellation handler, which runs on the cancelling thread.
            await withTaskCancellationHandler {
                try? await Task.sleep(for: .seconds(30))
            } onCancel: {
                completion("cancelled", complete: true)
            }
        case "later", "sameLater":
            if name == "sameLater" { started.withLock { $0.append(argument) } }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { completion.deliver(argument) }
        default: throw ExposedCallError.methodNotFound(name)
        }
    }
}

/// A bridge and one connection to it, without sockets: frames in, actions out. The bridge
/// runs on a ``ManualExecutor``: work it hands to a worker runs on the test's thread when
/// the harness drains it, and time moves only when the test advances it, so nothing here
/// sleeps. Waiting for output awaits the connection's waker or the executor instead.
struct BridgeHarness {
    let bridge: Bridge
    let connection: BridgeConnection
    let executor: ManualExecutor
    /// Work runs on threads the harness does not drain (real workers, or a connection the
    /// test made itself whose waker signals nothing): waiting for a condition yields.
    let polls: Bool
    let probe = ProbeInterface()

    /// - Parameter realWorkers: the bridge runs on Dispatch's workers and clock instead of
    ///   `executor` (for tests of which thread runs what); waiting for a condition yields.
    init(
        configure: (inout BridgeConfiguration) -> Void = { _ in },
        dismissal: (@Sendable (BridgeSession) -> Void)? = nil,
        executor: ManualExecutor = ManualExecutor(), realWorkers: Bool = false, journal: MemoryJournal? = nil,
        callSpans: (any CallSpanSink)? = nil
    ) {
        var config = BridgeConfiguration()
        configure(&config)
        self.executor = executor
        polls = realWorkers
        let bridgeExecutor: any BridgeExecutor = realWorkers ? DispatchBridgeExecutor() : executor
        bridge = Bridge(
            configuration: config, lifecycle: SessionLifecycle(dismissed: dismissal), executor: bridgeExecutor, journal: journal,
            callSpans: callSpans)
        journal?.bridge = bridge
        bridge.addInterface(probe, by: "p")
        connection = bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: CountingWaker(activity: executor.activity))
    }

    /// A connection the test made to an existing bridge (drains the bridge's executor when
    /// it is a ``ManualExecutor``).
    init(sharing bridge: Bridge, connection: BridgeConnection) {
        self.init(sharing: bridge, connection: connection, executor: bridge.executor as? ManualExecutor ?? ManualExecutor(), polls: true)
    }

    private init(sharing bridge: Bridge, connection: BridgeConnection, executor: ManualExecutor, polls: Bool) {
        self.bridge = bridge
        self.connection = connection
        self.executor = executor
        self.polls = polls
    }

    /// Another socket on this harness's bridge.
    func secondConnection(peerAddress: String = "127.0.0.1") -> BridgeHarness {
        let waker = CountingWaker(activity: executor.activity)
        return BridgeHarness(
            sharing: bridge, connection: bridge.connect(peerAddress: peerAddress, origin: nil, waker: waker), executor: executor, polls: false)
    }

    /// Hands over one frame, then the deferred work, as a transport does, and runs what the
    /// frame handed to workers.
    func send(_ value: JSONValue) {
        connection.receive(Array(value.description.utf8))
        bridge.runDeferredWork()
        executor.runUntilIdle()
    }

    func call(_ id: Int64, _ method: String, _ data: JSONValue?, stub: String? = nil) {
        var arg: JSONObject = [:]
        if let data { arg["data"] = data }
        if let stub { arg["_dscbstub"] = .string(stub) }
        send(["t": "call", "id": .integer(id), "method": .string(method), "arg": .object(arg)])
    }

    /// Says hello and returns the welcome.
    func hello() async throws -> JSONValue {
        send(["t": "hello", "v": 1])
        return try await messages(1)[0]
    }

    /// Collects `count` messages (batches split), or fails after `timeout`.
    func messages(_ count: Int, timeout: Duration = .seconds(5)) async throws -> [JSONValue] {
        var out: [JSONValue] = []
        try await waitFor(timeout: timeout, received: { out }) {
            while out.count < count {
                switch connection.nextAction() {
                case .write(let bytes)?:
                    let v = try JSONParser.parse(bytes)
                    if case .array(let items) = v { out.append(contentsOf: items) } else { out.append(v) }
                case .close(let code, let reason)?:
                    throw HarnessClosed(code: code, reason: reason)
                case nil:
                    return false
                }
            }
            return true
        }
        return out
    }

    /// Waits for the close action.
    func closeCode(timeout: Duration = .seconds(5)) async throws -> Int {
        try await close(timeout: timeout).code
    }

    /// Waits for the close action (writes before it are skipped).
    func close(timeout: Duration = .seconds(5)) async throws -> (code: Int, reason: String) {
        var close: (code: Int, reason: String)?
        try await waitFor(timeout: timeout, received: { [] }) {
            while true {
                switch connection.nextAction() {
                case .close(let c, let r)?:
                    close = (c, r)
                    return true
                case .write?: continue
                case nil: return false
                }
            }
        }
        return close ?? (0, "")
    }

    /// Whether `condition` came to hold within `timeout`, running the executor's work and
    /// waiting for activity (or, for work on threads the test does not control, yielding)
    /// in between.
    func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
        (try? await waitFor(timeout: timeout, received: { [] }, pollOthers: true) { condition() }) != nil
    }

    /// Runs `check` until it returns `true`: after draining the executor, and again each
    /// time the waker or the executor signals activity. `pollOthers`: the condition may be
    /// changed by threads that signal nothing (an interface's own tasks): yield instead of
    /// waiting for a signal. Throws ``HarnessTimeout`` after `timeout`.
    private func waitFor(
        timeout: Duration, received: () -> [JSONValue], pollOthers: Bool = false, _ check: () throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        let activity = executor.activity
        // Only matters when the test is about to fail: wakes the wait below at the deadline.
        let alarm = DispatchWorkItem { activity.signal() }
        DispatchQueue.global().asyncAfter(
            deadline: .now() + .nanoseconds(Int(timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)), execute: alarm)
        defer { alarm.cancel() }
        while true {
            let generation = activity.generation
            executor.runUntilIdle()
            if try check() { return }
            guard ContinuousClock.now < deadline else { throw HarnessTimeout(received: received()) }
            if pollOthers || polls {
                await Task.yield()
            } else {
                await activity.wait(after: generation)
            }
        }
    }
}

/// Whether `condition` came to hold within `timeout`, for bridges on the real executor
/// (work on threads the test does not control): yields between checks, never sleeps.
func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        await Task.yield()
    }
    return true
}

struct HarnessClosed: Error { let code: Int; let reason: String }
struct HarnessTimeout: Error { let received: [JSONValue] }

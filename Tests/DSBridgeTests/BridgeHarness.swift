// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Synchronization

/// A waker that only counts: the harness polls the connection instead of a transport.
final class CountingWaker: ConnectionWaker {
    let wakes = Atomic<Int>(0)
    func wake() { wakes.add(1, ordering: .relaxed) }
}

/// An interface with one method per behaviour the dispatcher must handle.
final class ProbeInterface: ExposedInterface {
    /// The order in which `record` calls started.
    let started = Mutex<[JSONValue]>([])

    static var exposedMethods: [String: ExposedMethodKind] {
        ["value": .synchronous, "void": .synchronous, "null": .synchronous, "throws": .synchronous, "record": .synchronous,
         "twice": .asynchronous, "throwsFirst": .asynchronous, "later": .asynchronous, "int": .synchronous,
         "untilCancelled": .asynchronous, "completesOnCancel": .asynchronous]
    }

    struct Boom: Error {}

    func callSynchronousMethod(named name: String, with argument: JSONValue) async throws -> JSONValue {
        switch name {
        case "value": return argument
        case "void": return ExposedResult.void
        case "null": return .null
        case "throws": throw Boom()
        case "int": return try ExposedResult.encode(ExposedArgument.decode(Int.self, from: argument, method: name) + 1)
        case "record":
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
        case "later":
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { completion.deliver(argument) }
        default: throw ExposedCallError.methodNotFound(name)
        }
    }
}

/// A bridge and one connection to it, without sockets: frames in, actions out.
struct BridgeHarness {
    let bridge: Bridge
    let connection: BridgeConnection
    let probe = ProbeInterface()

    init(configure: (inout BridgeConfiguration) -> Void = { _ in },
         dismissal: (@Sendable (BridgeSession) -> Void)? = nil,
         scheduler: any BridgeScheduler = DispatchBridgeScheduler()) {
        var config = BridgeConfiguration()
        configure(&config)
        bridge = Bridge(configuration: config, lifecycle: SessionLifecycle(dismissed: dismissal), scheduler: scheduler)
        bridge.addInterface(probe, by: "p")
        connection = bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: CountingWaker())
    }

    /// A second connection to an existing bridge.
    init(sharing bridge: Bridge, connection: BridgeConnection) {
        self.bridge = bridge
        self.connection = connection
    }

    /// Hands over one frame, then the deferred work, as a transport does.
    func send(_ value: JSONValue) {
        connection.receive(Array(value.description.utf8))
        bridge.runDeferredWork()
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
        let deadline = ContinuousClock.now + timeout
        while out.count < count {
            switch connection.nextAction() {
            case .write(let bytes)?:
                let v = try JSONParser.parse(bytes)
                if case .array(let items) = v { out.append(contentsOf: items) } else { out.append(v) }
            case .close(let code, let reason)?:
                throw HarnessClosed(code: code, reason: reason)
            case nil:
                guard ContinuousClock.now < deadline else { throw HarnessTimeout(received: out) }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        return out
    }

    /// Waits for the close action.
    func closeCode(timeout: Duration = .seconds(5)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            switch connection.nextAction() {
            case .close(let code, _)?: return code
            case .write?: continue
            case nil: try await Task.sleep(for: .milliseconds(1))
            }
        }
        throw HarnessTimeout(received: [])
    }
}

/// Polls `condition` every millisecond until it holds or `timeout` passes; returns whether
/// it held. For effects that happen on a worker after the harness saw the answer (handlers of
/// native-initiated calls run off the thread that took the page's `returnValue`).
func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

struct HarnessClosed: Error { let code: Int; let reason: String }
struct HarnessTimeout: Error { let received: [JSONValue] }

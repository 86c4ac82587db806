// SPDX-License-Identifier: MIT
import DSBridge
import Synchronization

/// The pure core's hot path without a session, its locks or a thread hop: decode the frame,
/// resolve the method, read the envelope, run the `@Exposed` method (in a `Task.immediate`,
/// as the session does, so a method that does not suspend runs on the calling thread),
/// encode the `ret` into the outbound log and take the frame. What a call costs before any
/// scheduling.
public final class CorePipeline {
    private let registry = InterfaceRegistry()
    private let decoder = PageFrameDecoder()
    private var log = OutboundLog()

    public init() {
        registry.addInterface(BenchEchoAPI(), by: "echo")
    }

    /// Runs `name` on `interface` on this thread; the echo methods never suspend.
    private static func runImmediately(_ interface: any ExposedInterface, _ name: String, _ data: JSONValue) throws -> JSONValue {
        let result = Mutex<Result<JSONValue, any Error>?>(nil)
        Task.immediate {
            do {
                let value = try await interface.callSynchronousMethod(named: name, with: data)
                result.withLock { $0 = .success(value) }
            } catch {
                result.withLock { $0 = .failure(error) }
            }
        }
        guard let outcome = result.withLock({ $0 }) else { fatalError("\(name) suspended") }
        return try outcome.get()
    }

    /// Runs every call of `frame`; returns the last outbound frame.
    public func echo(_ frame: [UInt8]) -> [UInt8]? {
        do {
            var out: [UInt8]?
            for case .call(let call) in try decoder.decode(frame: frame, helloSeen: true) {
                let route = try CallRoute.resolve(call.method, in: registry)
                let argument = try CallArgument(raw: call.rawArg)
                guard case .synchronous(.shared(let interface), let name) = route else { fatalError("echo.syn is not sync") }
                let value = try Self.runImmediately(interface, name, argument.data)
                _ = try log.append(.ret(id: call.id, result: .success(value)))
                out = log.takeFrame()
                log.acknowledge(log.lastSeq)
            }
            return out
        } catch {
            fatalError("pipeline failed: \(error)")
        }
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeDemo
import DSBridgeServer
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// `BridgeServer` as a swift-service-lifecycle `Service`: a graceful shutdown drains it as
/// SIGTERM drains the daemon (PROTOCOL.md 7, 2.5), cancellation cuts the drain.
@Suite("BridgeServer in a ServiceGroup", .timeLimit(.minutes(1)))
struct ServiceGroupTests {
    static let logger: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .error
        return logger
    }()

    /// A server with the demo interfaces on 127.0.0.1, ports chosen by the system, not
    /// started; remove `webRoot` when done.
    private static func unstartedServer(drainMs: Int = 10_000, webRootExists: Bool = true) throws -> (server: BridgeServer, webRoot: URL) {
        let bridge = Bridge(configuration: BridgeConfiguration(), logger: logger)
        DemoInterfaces.register(on: bridge, tickMs: 5)
        let webRoot = FileManager.default.temporaryDirectory.appendingPathComponent("dsbridged-lifecycle-\(UUID().uuidString)")
        if webRootExists { try FileManager.default.createDirectory(at: webRoot, withIntermediateDirectories: true) }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.adminPort = 0
        configuration.webRoot = webRoot.path
        configuration.drainMs = drainMs
        return (BridgeServer(bridge: bridge, configuration: configuration, logger: logger), webRoot)
    }

    @Test("graceful shutdown: the call in flight is answered, the socket gets 1001, /healthz 503, run() returns; the other service stops too")
    func gracefulShutdown() async throws {
        let (server, webRoot) = try Self.unstartedServer(drainMs: 5_000)
        defer { try? FileManager.default.removeItem(at: webRoot) }
        let otherStopped = Atomic<Bool>(false)
        let other = ClosureService {
            try await ServiceLifecycle.gracefulShutdown()
            otherStopped.store(true, ordering: .relaxed)
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: server), .init(service: other)], logger: Self.logger))
        let running = Task { try await group.run() }
        let ports = try await server.listen()  // run() started it (or this did, first)
        let (opened, sessionOpened) = AsyncStream.makeStream(of: Void.self)
        let page = Task {
            try await onOwnThread { () throws -> (JSONValue, Int) in
                let ws = try TestWebSocket(port: ports.port)
                try ws.hello()
                try ws.send(callMessage(1, "test.sleepSyn", 600))
                sessionOpened.yield()
                let answer = try ws.nextMessage()
                return (answer, try ws.closeCode())
            }
        }
        for await _ in opened { break }
        #expect(!server.isDraining)
        #expect(try await onOwnThread { try TestHTTP.request(port: ports.adminPort, path: "/healthz").status } == 200)
        let started = ContinuousClock.now
        await group.triggerGracefulShutdown()
        #expect(await eventually { server.isDraining })
        #expect(try await onOwnThread { try TestHTTP.request(port: ports.adminPort, path: "/healthz").status } == 503)
        let (answer, code) = try await page.value
        #expect(answer == ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": 600])
        #expect(code == 1001)
        try await running.value
        #expect(ContinuousClock.now - started < .seconds(3))
        let otherDidStop = otherStopped.load(ordering: .relaxed)
        #expect(otherDidStop)
        server.waitUntilStopped()  // returns at once: the service thread has ended
    }

    @Test("cancellation cuts the drain: a call that would outlast drainMs does not hold run()")
    func cancellation() async throws {
        let (server, webRoot) = try Self.unstartedServer(drainMs: 10_000)
        defer { try? FileManager.default.removeItem(at: webRoot) }
        let serviceThreadsBefore = threadsNamed("lws-service")
        let running = Task { try await server.run() }
        let ports = try await server.listen()
        let (opened, sessionOpened) = AsyncStream.makeStream(of: Void.self)
        let page = Task {
            try await onOwnThread { () throws -> Int in
                let ws = try TestWebSocket(port: ports.port)
                try ws.hello()
                try ws.send(callMessage(1, "test.sleepSyn", 8_000))
                sessionOpened.yield()
                return try ws.closeCode()
            }
        }
        for await _ in opened { break }
        let started = ContinuousClock.now
        running.cancel()
        #expect(try await page.value == 1001)
        try await running.value
        #expect(ContinuousClock.now - started < .seconds(3), "the drain was cut, not waited for (drainMs 10 s)")
        await server.stopped()
        // run() returned once the service thread had exited, not just ended its work (what
        // it runs at exit must be over before a daemon goes on to exit).
        #expect(threadsNamed("lws-service") == serviceThreadsBefore)
    }

    @Test("a server started with start() runs in a group until its graceful shutdown")
    func startedBefore() async throws {
        let (server, webRoot) = try Self.unstartedServer()
        defer { try? FileManager.default.removeItem(at: webRoot) }
        let ports = try await onOwnThread { try server.start() }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [.init(service: server)], logger: Self.logger))
        let running = Task { try await group.run() }
        #expect(try await server.listen() == ports, "the same ports: it started once")
        #expect(try await onOwnThread { try TestHTTP.request(port: ports.adminPort, path: "/healthz").status } == 200)
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(server.isDraining)
    }

    @Test("run() throws the start error when the server cannot start")
    func startFails() async throws {
        let (server, webRoot) = try Self.unstartedServer(webRootExists: false)
        await #expect(throws: ServerStartError.self) { try await server.run() }
        #expect(throws: ServerStartError.self) { try server.start() }
        server.waitUntilStopped()  // nothing to wait for
        await server.stopped()
        #expect(!FileManager.default.fileExists(atPath: webRoot.path))
    }
}

/// Runs `body` on a thread of its own and awaits its result: the tests' clients block,
/// and must not hold a thread of the concurrency pool the server's interface methods run on.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// Whether `condition` holds within `timeout`, checked every 10 ms.
func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

// SPDX-License-Identifier: MIT
import DSBridgeRedis
import Dispatch
import Foundation
import Logging
import Synchronization
import Testing

/// The tests' logger: silent, or on stderr when REDIS_TEST_LOG is set (e.g. `debug`).
let testLogger: Logger = {
    guard let level = ProcessInfo.processInfo.environment["REDIS_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) else {
        return Logger(label: "redis-test") { _ in SwiftLogNoOpLogHandler() }
    }
    var logger = Logger(label: "redis-test") { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = level
    return logger
}()

/// Polls `condition` every 10 ms until it holds (true) or `seconds` have passed (false).
func eventually(within seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// A value that one thread sets once and another waits for, with a deadline.
final class Outcome<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    private let semaphore = DispatchSemaphore(value: 0)

    init() {}

    func set(_ newValue: Value) {
        value.withLock { $0 = newValue }
        semaphore.signal()
    }

    /// The value, if set (without waiting).
    var current: Value? { value.withLock { $0 } }

    /// Waits at most `seconds` for the value (blocks the thread: for short waits only).
    func wait(seconds: Double = 5) -> Value? {
        if let current { return current }
        _ = semaphore.wait(timeout: .now() + seconds)
        return current
    }
}

/// A counter any thread bumps.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    init() {}

    func bump() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

enum TestFailure: Error, CustomStringConvertible {
    case timedOut(String)

    var description: String {
        switch self {
        case .timedOut(let what): return "timed out: \(what)"
        }
    }
}

/// A started client to `url`, connected (at most 5 s), `configure` applied before start.
func connectedClient(
    _ url: String, commandTimeoutMs: Int = 2000, maxQueuedBatches: Int = 10_000, configure: (RedisClient) -> Void = { _ in }
) async throws -> RedisClient {
    let client = RedisClient(
        endpoint: try RedisEndpoint(parsing: url), logger: testLogger, commandTimeoutMs: commandTimeoutMs, maxQueuedBatches: maxQueuedBatches)
    configure(client)
    client.start()
    guard await eventually({ client.isConnected }) else {
        client.stop()
        throw TestFailure.timedOut("the client did not connect to \(url) within 5 s")
    }
    return client
}

/// The argument bytes of a string, for comparing replies.
func bytes(_ text: String) -> RedisValue { .string(Array(text.utf8)) }

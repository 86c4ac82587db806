// SPDX-License-Identifier: MIT
import DSBridge
import Dispatch
import Foundation
import Logging
import RedisTestServer
import Synchronization
import Testing

@testable import DSBridgeCluster

/// When the journal's rounds go out, against a real Redis on loopback: a round the network
/// thread asks for waits for the end of its loop's pass (`Bridge.runDeferredWork`); one asked
/// for on any other thread goes out at once.
@Suite("Journal rounds and the network thread's pass")
struct JournalPassEndTests {
    /// Polls `condition` every 2 ms until it holds (true) or `seconds` have passed (false).
    private static func eventually(within seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(2_000)
        }
        return condition()
    }

    /// Runs `body` on a thread of its own (the stand-in for the transport's network thread)
    /// and returns what it returned.
    private static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            result.withLock { $0 = body() }
            done.signal()
        }
        thread.start()
        done.wait()
        return result.withLock { $0! }
    }

    @Test("a round asked for on the network thread is built when its pass ends; from another thread at once")
    func roundWaitsForPassEnd() async throws {
        let server = try RedisServerProcess.start()
        defer { server.stop() }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let parts = try ClusterNode.Parts(nodeID: "n1", redisURL: server.url(), graceMs: 60_000, logger: logger)
        let bridge = Bridge(logger: logger, journal: parts.journal)
        let node = ClusterNode(parts: parts, bridge: bridge, address: "127.0.0.1:1", logger: logger)
        node.start()
        defer { node.stop() }
        #expect(Self.eventually(within: 10) { node.healthNote == nil }, "connected")
        let identity = SessionIdentity(id: "pass-end", token: "pass-end-token", peerAddress: "127.0.0.1", origin: nil, createdAtMs: 0)
        let session = try #require(bridge.restoreSession(SessionSnapshot(identity: identity)))
        let journal = parts.journal
        // Queued (or due at the pass' end) and not built yet.
        let waiting: @Sendable () -> Bool = { journal.state.withLock { $0.roundQueued } }
        #expect(Self.eventually(within: 5) { !waiting() }, "nothing pending before the test")

        let (heldBack, builtAtPassEnd) = Self.onOwnThread { () -> (Bool, Bool) in
            bridge.serviceThreadStarted()
            journal.sessionNeedsWrite(session)
            usleep(200_000)
            let heldBack = waiting() && journal.state.withLock { $0.roundAtPassEnd }
            bridge.runDeferredWork()  // the pass ends
            return (heldBack, Self.eventually(within: 5) { !waiting() })
        }
        #expect(!bridge.isOnServiceThread, "the test's own thread is not the network thread")
        #expect(heldBack, "not built before the pass ended")
        #expect(builtAtPassEnd, "built when the pass ended")

        journal.sessionNeedsWrite(session)
        #expect(Self.eventually(within: 5) { !waiting() }, "asked for on another thread: built at once")
        #expect(!journal.state.withLock { $0.roundAtPassEnd })
    }
}

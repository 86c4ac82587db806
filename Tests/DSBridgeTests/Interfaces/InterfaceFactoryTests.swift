// SPDX-License-Identifier: MIT
import DSBridge
import Synchronization
import Testing

/// A per-page counter: each session gets its own.
@Exposed
final class PageCounter: Sendable {
    let owner: String
    private let count = Mutex(0)

    init(owner: String) { self.owner = owner }

    func increment() -> Int {
        count.withLock {
            $0 += 1; return $0
        }
    }
    func whoCalls() -> String { BridgeSession.current?.id ?? "nobody" }
    func owned() -> String { owner }
}

@Suite("Interfaces per session and the calling session")
struct InterfaceFactoryTests {
    @Test("a factory gives each session its own instance, made on first use")
    func perSession() async throws {
        let h1 = BridgeHarness()
        h1.bridge.addInterfaceFactory(by: "counter") { session in PageCounter(owner: session.id) }
        let h2connection = h1.bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: CountingWaker())
        let h2 = BridgeHarness(sharing: h1.bridge, connection: h2connection)
        let w1 = try await h1.hello()
        let w2 = try await h2.hello()
        for i in 1...3 { h1.call(Int64(i), "counter.increment", nil) }
        h2.call(1, "counter.increment", nil)
        h1.call(4, "counter.owned", nil)
        h2.call(2, "counter.whoCalls", nil)
        #expect(try await h1.messages(4).map { $0["data"] } == [1, 2, 3, w1["session"] ?? .null])
        #expect(try await h2.messages(2).map { $0["data"] } == [1, w2["session"] ?? .null])
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import Testing

@Suite("maxCallsPending: reads pause at the limit and resume below it")
struct PendingCallLimitTests {
    @Test("calls ending while the pending-call limit is reached never leave the socket paused")
    func pauseResumeRace() async throws {
        let h = BridgeHarness { $0.maxCallsPending = 2 }
        h.bridge.addInterface(NonblockingProbe(), by: "n")
        _ = try await h.hello()
        let count = 3_000
        for i in 1...count { h.call(Int64(i), "n.yields", .integer(Int64(i))) }
        let answers = try await h.messages(count, timeout: .seconds(30))
        #expect(Set(answers.compactMap { $0["id"]?.integerValue }).count == count)
        #expect(await h.eventually { !h.connection.wantsReadsPaused })
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeDemo
import Testing

@Suite("test.progress: repeated completions without delay (load tests)")
struct TestAPIProgressTests {
    /// A harness whose bridge has the `test` interface of the demo.
    private func harness() -> BridgeHarness {
        let bridge = Bridge()
        bridge.addInterface(TestAPI(), by: "test")
        let connection = bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: CountingWaker())
        return BridgeHarness(sharing: bridge, connection: connection)
    }

    @Test("count 3: ret \"\", then 1, 2, 3 as progress and 3 as the final cb")
    func deliversCountProgressValuesThenTheFinalOne() async throws {
        let h = harness()
        _ = try await h.hello()
        h.call(1, "test.progress", 3, stub: "dscb1")
        #expect(
            try await h.messages(5) == [
                ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ""],
                ["t": "cb", "seq": 2, "stub": "dscb1", "data": 1, "complete": false],
                ["t": "cb", "seq": 3, "stub": "dscb1", "data": 2, "complete": false],
                ["t": "cb", "seq": 4, "stub": "dscb1", "data": 3, "complete": false],
                ["t": "cb", "seq": 5, "stub": "dscb1", "data": 3, "complete": true],
            ])
    }

    @Test("count 0: only the final cb")
    func zeroCountDeliversOnlyTheFinalValue() async throws {
        let h = harness()
        _ = try await h.hello()
        h.call(1, "test.progress", 0, stub: "dscb1")
        #expect(
            try await h.messages(2) == [
                ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ""],
                ["t": "cb", "seq": 2, "stub": "dscb1", "data": 0, "complete": true],
            ])
    }

    @Test("a count outside 0...10000 or not an integer is badArgument and delivers nothing")
    func outOfRangeCountIsBadArgument() async throws {
        let h = harness()
        _ = try await h.hello()
        h.call(1, "test.progress", 10_001, stub: "dscb1")
        h.call(2, "test.progress", -1, stub: "dscb2")
        h.call(3, "test.progress", "ten", stub: "dscb3")
        h.call(4, "test.progress", 1, stub: "dscb4")
        let m = try await h.messages(6)
        #expect(m[0...2].map { $0["error"]?["kind"] } == ["badArgument", "badArgument", "badArgument"])
        #expect(m[0...2].allSatisfy { $0["t"] == "ret" && $0["code"] == -1 })
        #expect(m[3] == ["t": "ret", "seq": 4, "id": 4, "code": 0, "data": ""])
        #expect(m[4]["stub"] == "dscb4" && m[5]["stub"] == "dscb4")
    }
}

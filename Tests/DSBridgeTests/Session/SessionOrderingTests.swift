// SPDX-License-Identifier: MIT
import DSBridge
import Testing

@Suite("Per-session ordering (PROTOCOL.md 3)")
struct SessionOrderingTests {
    @Test("calls start in id order and seq rises by one across ret and cb")
    func startOrder() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        let ids = (1...500).map { Int64($0) }
        let batch = JSONValue.array(
            ids.map { i in
                [
                    "t": "call", "id": .integer(i), "method": i % 3 == 0 ? "p.twice" : "p.record",
                    "arg": ["data": .integer(i), "_dscbstub": .string("dscb\(i)")],
                ]
            })
        h.send(batch)
        let expectedCount = ids.reduce(0) { $0 + ($1 % 3 == 0 ? 3 : 2) }
        let m = try await h.messages(expectedCount)
        #expect(m.map { $0["seq"]?.integerValue ?? 0 } == Array(1...Int64(expectedCount)))
        let recorded = h.probe.started.withLock { $0 }
        #expect(recorded == ids.filter { $0 % 3 != 0 }.map { JSONValue.integer($0) })
        let retIDs = m.filter { $0["t"] == "ret" }.map { $0["id"]?.integerValue ?? 0 }
        #expect(retIDs == ids)
    }

    @Test("frames of one socket are processed in arrival order")
    func frameOrder() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        for i in 1...300 { h.call(Int64(i), "p.record", .integer(Int64(i))) }
        let m = try await h.messages(300)
        #expect(m.map { $0["id"]?.integerValue ?? 0 } == Array(1...300))
    }

    @Test("a duplicate or lower call id is dropped without a reply (exactly once)")
    func duplicates() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(2, "p.record", 2)
        h.call(2, "p.record", 22)
        h.call(1, "p.record", 1)
        h.call(3, "p.record", 3)
        let m = try await h.messages(2)
        #expect(m.map { $0["id"] } == [2, 3])
        #expect(h.probe.started.withLock { $0 } == [2, 3])
    }

    @Test("a batch is checked whole: one bad message and none of it runs")
    func wholeFrame() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.send([["t": "call", "id": 1, "method": "p.record", "arg": ["data": 1]], ["t": "nope"]])
        #expect(try await h.closeCode() == 4000)
        #expect(h.probe.started.withLock { $0 }.isEmpty)
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import Testing

@testable import DSBridgeCluster

/// An invoke a moving session had not journaled, read back for the new owner.
@Suite("Passed invokes")
struct PassedInvokeTests {
    private static func invoke(callbackId: Int64, method: String, args: [JSONValue]) -> SequencedMessage? {
        let bytes = EncodedInvoke(method: method, args: args).bytes(seq: 17, callbackId: callbackId)
        return SequencedMessage(encoded: bytes, seq: 17)
    }

    @Test("an invoke is read back with its method, arguments and the origin recorded for its callbackId")
    func readsInvoke() throws {
        let message = try #require(Self.invoke(callbackId: 4, method: "ns.add", args: [.integer(3), .string("é\"x"), .null]))
        let passed = try #require(PassedInvoke(message, origin: { $0 == 4 ? "n1|12" : nil }))
        #expect(passed.method == "ns.add")
        #expect(passed.args == [.integer(3), .string("é\"x"), .null])
        #expect(passed.origin == "n1|12")
    }

    @Test("without a recorded origin, or for another kind of message, nothing is passed")
    func needsOriginAndInvoke() throws {
        let message = try #require(Self.invoke(callbackId: 4, method: "m", args: []))
        #expect(PassedInvoke(message, origin: { _ in nil }) == nil)
        let ret = SequencedMessage(kind: .ret, tail: Array(#","id":4,"code":0,"data":1}"#.utf8))
        #expect(PassedInvoke(ret, origin: { _ in "n1|1" }) == nil)
    }
}

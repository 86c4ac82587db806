// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridgeCluster

/// When a native call sent to another node counts as lost with that node (issue 48): by a
/// read of the nodes' records that began after the call went out.
@Suite("Remote call owners")
struct RemoteCallOwnerTests {
    let owner = RemoteCallOwner(session: "s1", node: "b", incarnation: "7", since: 1_000)

    @Test("a read that began before the call went out says nothing about it")
    func readBeforeTheCall() {
        #expect(!owner.isLost(live: [:], readFrom: 1_000))
        #expect(!owner.isLost(live: [:], readFrom: 999))
    }

    @Test("a later read without the node's record: lost")
    func noRecord() {
        #expect(owner.isLost(live: ["a": "1"], readFrom: 1_001))
    }

    @Test("a later read with another incarnation of the node (started again): lost; the same one: alive")
    func incarnations() {
        #expect(owner.isLost(live: ["b": "8"], readFrom: 1_001))
        #expect(!owner.isLost(live: ["b": "7"], readFrom: 1_001))
    }

    @Test("an incarnation not known when the call went out: only a missing record counts")
    func unknownIncarnation() {
        let unknown = RemoteCallOwner(session: "s1", node: "b", incarnation: nil, since: 1_000)
        #expect(!unknown.isLost(live: ["b": "8"], readFrom: 1_001))
        #expect(unknown.isLost(live: [:], readFrom: 1_001))
    }

    @Test("the lost-before-delivery error names the node and says the call was not made")
    func errorText() {
        #expect(
            ClusterCallError.lostBeforeDelivery("node2").description
                == "node node2 was lost before the call reached the page; the call was not made")
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis
import Dispatch

/// Where a native call made on this node into a session of another node went, until its
/// invoke is known to be in the journal.
struct RemoteCallOwner: Sendable, Equatable {
    /// The session called into.
    let session: String
    /// The node the call was sent to.
    let node: String
    /// That node's incarnation as last read (`nil`: not known when the call went out).
    let incarnation: String?
    /// When the call went out (uptime ns).
    let since: UInt64

    /// Whether the node is gone by a read of the nodes' records that began after the call
    /// went out: no record (dead), or another incarnation (started again). `live`: the
    /// incarnations that read found, by node.
    func isLost(live: [String: String], readFrom: UInt64) -> Bool {
        guard since < readFrom else { return false }
        guard let seen = live[node] else { return true }
        return incarnation.map { $0 != seen } ?? false
    }
}

/// Native calls sent to a node that died before it journaled their invoke (issue 48): the
/// node took the call (Redis delivered the `call` message) and was killed before its next
/// journal round, so no node holds the invoke and the page never sees it. Without this the
/// caller waited for its whole timeout (a 504 with no progress); now it learns within about
/// a second of the node's loss that the call was not made.
extension ClusterNode {
    /// Every second, once the other nodes' records were read (the read started at
    /// `readFrom`, uptime ns): each remote native call whose node is gone is looked up in its
    /// session's journal (`nc`, the calls waiting for the page, by origin). Journaled: the
    /// session carries it to whichever node its page resumes on, and it is watched no more.
    /// Not journaled: it fails at once with ``ClusterCallError/lostBeforeDelivery(_:)``.
    /// (A call whose final answer came meanwhile has left the table.)
    func failRemoteCallsOfLostNodes(readFrom: UInt64) {
        let live = liveIncarnations.withLock { $0 }
        let lost = pending.withLock { p in p.remoteOwners.filter { $0.value.isLost(live: live, readFrom: readFrom) } }
        guard !lost.isEmpty else { return }
        let bySession = Dictionary(grouping: lost, by: { $0.value.session })
        let sessions = Array(bySession.keys)
        messenger.send(sessions.map { RedisCommand("HVALS", ClusterKeys.session($0) + ":nc") }) { [self] result in
            // Redis did not answer: asked again at the next read.
            guard case .success(let replies) = result, replies.count == sessions.count else { return }
            for (session, reply) in zip(sessions, replies) {
                let origins = Set(reply.arrayValue?.compactMap(\.stringValue) ?? [])
                for (ref, owner) in bySession[session] ?? [] {
                    if origins.contains("\(nodeID)|\(ref)") {
                        // Journaled: it goes with the session; nothing to watch any more.
                        pending.withLock { p in
                            if p.remoteOwners[ref] == owner { p.remoteOwners.removeValue(forKey: ref) }
                        }
                    } else {
                        failNeverJournaled(ref, owner: owner)
                    }
                }
            }
        }
    }

    /// Remote call `ref`, which node `owner.node` took and lost before journaling it, fails
    /// now (unless its final answer came meanwhile, or it moved on to another node).
    private func failNeverJournaled(_ ref: Int64, owner: RemoteCallOwner) {
        let still = pending.withLock { p in p.remoteOwners[ref] == owner }
        guard still, let refused = callOff(ref) else { return }
        bridge.forgetNativeCallHandler(ref: ref)
        logger.warning(
            "cluster: a call into session \(owner.session) was lost with node \(owner.node) before it reached the page; answered as not made"
        )
        refused(.lostBeforeDelivery(owner.node))
    }
}

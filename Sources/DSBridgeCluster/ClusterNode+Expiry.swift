// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis

/// The upkeep of session expiries (docs/CLUSTER.md, expiry): the owner renews its sessions,
/// and the keys of dead nodes' sessions get an expiry.
extension ClusterNode {
    /// Sessions per script call of a renewal or reaper pass. A Lua script runs in Redis
    /// without interruption, so one call for 10,000 sessions (about 4 µs each) held every
    /// node's journal rounds back for tens of milliseconds; chunks of this size, each sent
    /// once the one before has answered, hold them back by about a millisecond at most.
    static let expiryChunk = 200

    /// Every `graceMs`/3: renews the expiry of the sessions this node owns, in chunks, and
    /// lets go of those whose records another node took. A beat does not start a pass while
    /// the previous one is going.
    func renewSessions() {
        guard !renewing.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let owned = bridge.sessions.filter { !$0.hasMoved && journal.epoch(of: $0.id) != nil }.map(\.id)
        renew(owned[...])
    }

    private func renew(_ ids: ArraySlice<String>) {
        guard !ids.isEmpty, !stopped.load(ordering: .acquiring) else {
            renewing.store(false, ordering: .releasing)
            return
        }
        let chunk = ids.prefix(Self.expiryChunk)
        let command = ClusterScripts.renewScript.evalSHA(arguments: [nodeID, String(journal.ttlMs)] + Array(chunk))
        messenger.send([command]) { [self] result in
            guard case .success(let replies) = result else {
                renewing.store(false, ordering: .releasing)  // Redis went away: the next pass renews
                return
            }
            for id in replies.first?.arrayValue?.compactMap(\.stringValue) ?? [] { bridge.session(id: id)?.moveAway() }
            renew(ids.dropFirst(chunk.count))
        }
    }

    /// Every 5 s: the keys of dead nodes' sessions get an expiry, a chunk at a time; a node
    /// with no session left is forgotten.
    func reapDeadNodes() {
        guard !reaping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let done: @Sendable () -> Void = { [self] in reaping.store(false, ordering: .releasing) }
        messenger.send([RedisCommand("SMEMBERS", ClusterKeys.nodes)]) { [self] result in
            guard case .success(let r) = result, let names = r.first?.arrayValue?.compactMap(\.stringValue) else { return done() }
            let others = names.filter { $0 != nodeID }
            guard !others.isEmpty else { return done() }
            messenger.send(others.map { RedisCommand("EXISTS", ClusterKeys.node($0)) }) { [self] result in
                guard case .success(let alive) = result else { return done() }
                reap(zip(others, alive).filter { $0.1.integerValue == 0 }.map(\.0)[...], cursor: "0")
            }
        }
    }

    /// Reaps `nodes` in turn, the first from its scan's `cursor`.
    private func reap(_ nodes: ArraySlice<String>, cursor: String) {
        guard let node = nodes.first, !stopped.load(ordering: .acquiring) else {
            reaping.store(false, ordering: .releasing)
            return
        }
        let command = ClusterScripts.reapScript.evalSHA(arguments: [node, String(journal.ttlMs), cursor, String(Self.expiryChunk)])
        messenger.send([command]) { [self] result in
            guard case .success(let replies) = result else {
                reaping.store(false, ordering: .releasing)
                return
            }
            let next = replies.first?.arrayValue?.first?.stringValue ?? "0"
            if next == "0" { reap(nodes.dropFirst(), cursor: "0") } else { reap(nodes, cursor: next) }
        }
    }
}

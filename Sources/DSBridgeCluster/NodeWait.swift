// SPDX-License-Identifier: MIT

/// A request this node sent other nodes (a listing, a group call) waiting for their answers:
/// what came so far, the nodes still to answer, and what gets it all. Kept in
/// ``ClusterNode/Pending`` by the request's number.
struct NodeWait<Part: Sendable>: Sendable {
    var waitingFor: Set<String>
    var parts: [Part]
    let done: @Sendable ([Part]) -> Void

    /// Adds `parts`, the answer of `node` (`nil`: a node not known, nothing crossed off), to
    /// the wait `req` of `waits`. Returns the wait, taken out of `waits`, once no node is left
    /// to answer (the caller then hands it over outside the lock); `nil` while some are, or
    /// when there is no such wait (it ended).
    static func answer(
        _ req: Int64, in waits: inout [Int64: NodeWait], from node: String?, parts: [Part] = []
    ) -> NodeWait? {
        guard var wait = waits[req] else { return nil }
        wait.parts += parts
        if let node { wait.waitingFor.remove(node) }
        guard wait.waitingFor.isEmpty else {
            waits[req] = wait
            return nil
        }
        waits.removeValue(forKey: req)
        return wait
    }

    /// Hands what came over to ``done``.
    func finish() { done(parts) }
}

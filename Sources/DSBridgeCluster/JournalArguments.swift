// SPDX-License-Identifier: MIT
import DSBridge

/// The arguments of ``ClusterScripts/journal`` for one round: a head (node, runner, ttl,
/// the count of batches), then each batch: 14 fixed fields, then sections each preceded by
/// its count (messages: `seq`, bytes, run id, run value; accepted call ids; native calls:
/// `callbackId`, origin or empty; held invokes: `callbackId`, tail or empty; a snapshot's
/// run table: id, value). Pure: tested without Redis.
enum JournalArguments {
    /// The whole round's arguments (after `EVALSHA sha 0`).
    /// - Parameters:
    ///   - node: the writing node; `runner`: its runner id (`NAME#INCARNATION`) for its
    ///     run-table entries; `ttlMs`: the time to live of sessions it creates.
    ///   - batches: each batch with this node's epoch of its session.
    static func round(node: String, runner: String, ttlMs: Int, batches: [(batch: JournalBatch, epoch: Int)]) -> [[UInt8]] {
        var a: [[UInt8]] = []
        a.reserveCapacity(4 + batches.count * 24)
        a.append(Array(node.utf8))
        a.append(Array(runner.utf8))
        a.append(Array(String(ttlMs).utf8))
        a.append(Array(String(batches.count).utf8))
        for (batch, epoch) in batches { append(batch, epoch: epoch, runner: runner, to: &a) }
        return a
    }

    /// Appends one batch's part of a round.
    static func append(_ batch: JournalBatch, epoch: Int, runner: String, to a: inout [[UInt8]]) {
        func add(_ s: String) { a.append(Array(s.utf8)) }
        func add(_ n: Int64?) { a.append(n.map { Array(String($0).utf8) } ?? []) }
        add(batch.session)
        add(String(epoch))
        add((batch.created != nil ? "c" : "") + (batch.isSnapshot ? "s" : ""))
        add(batch.lastSeq)
        add(batch.lastCall)
        add(batch.acked)
        add(batch.ready.map { $0 ? "1" : "0" } ?? "")
        add(batch.nextCallbackId)
        add(batch.tags.map(tagsJSON) ?? "")
        add(String(batch.lateConsumed))
        if let c = batch.created {
            add(c.token)
            add(c.origin ?? "")
            add(c.peerAddress)
            add(String(c.createdAtMs))
        } else {
            a.append(contentsOf: [[], [], [], []])
        }
        add(String(batch.messages.count))
        for m in batch.messages {
            add(m.seq)
            a.append(m.bytes)
            if let run = m.run {
                add(run.id)
                add(run.entry.map { runValue($0, runner: run.runner ?? runner) } ?? "")
            } else {
                a.append(contentsOf: [[], []])
            }
        }
        add(String(batch.accepted.count))
        for id in batch.accepted { add(id) }
        add(String(batch.nativeCalls.count))
        for n in batch.nativeCalls {
            add(n.callbackId)
            add(n.origin ?? "")
        }
        add(String(batch.held.count))
        for h in batch.held {
            add(h.callbackId)
            a.append(h.tail ?? [])
        }
        add(String(batch.runTable.count))
        for r in batch.runTable {
            add(r.id)
            add(runValue(r.entry, runner: r.runner ?? runner))
        }
    }

    /// How a run-table entry is stored: `RUNNER|r` or `RUNNER|c|STUB`, the runner being the
    /// node running the call (`NAME#INCARNATION`).
    static func runValue(_ entry: RunEntry, runner: String) -> String {
        switch entry {
        case .needsReturn: return "\(runner)|r"
        case .needsCompletion(let stub): return "\(runner)|c|\(stub)"
        }
    }

    /// Reads a stored run-table entry back: the node running the call and its entry.
    static func parseRunValue(_ value: String) -> (node: String, entry: RunEntry)? {
        guard let bar = value.firstIndex(of: "|") else { return nil }
        let node = String(value[..<bar])
        let rest = value[value.index(after: bar)...]
        if rest == "r" { return (node, .needsReturn) }
        if rest.hasPrefix("c|") { return (node, .needsCompletion(stub: String(rest.dropFirst(2)))) }
        return nil
    }

    /// Tags as the JSON array the scripts decode.
    static func tagsJSON(_ tags: [String]) -> String {
        JSONWriter.string(.array(tags.map { .string($0) }))
    }
}

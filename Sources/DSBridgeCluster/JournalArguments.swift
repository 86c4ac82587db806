// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis

/// The arguments of ``ClusterScripts/journal`` for one round: a head (node, ttl, the count
/// of batches), then each batch: 14 fixed fields, then seven sections, each its count of
/// arguments followed by them, each one command in the script: the log's `seq`/bytes pairs
/// (`ZADD`); the run table's deleted call ids (`HDEL`) and its call id/value pairs (`HSET`);
/// the same two for native calls waiting for the page (`callbackId`, origin) and for
/// invokes held before `dsinit` (`callbackId`, the invoke's tail). A hash's changes are
/// folded to their final value per field first (``HashChanges``). Pure: tested without Redis.
enum JournalArguments {
    /// The round as the command Redis runs: `EVALSHA <journal script> 0`, then the
    /// arguments, written straight into RESP.
    static func command(node: String, runner: String, ttlMs: Int, batches: [(batch: JournalBatch, epoch: Int)]) -> RedisCommand {
        let bytes = batches.reduce(256) { sum, b in b.batch.messages.reduce(sum + 400) { $0 + $1.bytes.count + 64 } }
        var writer = RESPCommandWriter(name: "EVALSHA", capacity: bytes)
        writer.appendArgument(ClusterScripts.journalScript.sha1)
        writer.appendArgument(decimal: 0)
        write(node: node, runner: runner, ttlMs: ttlMs, batches: batches, to: &writer)
        return writer.command()
    }

    /// The whole round's arguments (after `EVALSHA sha 0`), as a list (tests).
    static func round(node: String, runner: String, ttlMs: Int, batches: [(batch: JournalBatch, epoch: Int)]) -> [[UInt8]] {
        var a: [[UInt8]] = []
        a.reserveCapacity(3 + batches.count * 28)
        write(node: node, runner: runner, ttlMs: ttlMs, batches: batches, to: &a)
        return a
    }

    /// Writes the round's arguments (after `EVALSHA sha 0`) to `sink`.
    /// - Parameters:
    ///   - node: the writing node; `runner`: its runner id (`NAME#INCARNATION`) for its
    ///     run-table entries; `ttlMs`: the time to live of sessions it creates.
    ///   - batches: each batch with this node's epoch of its session.
    static func write(
        node: String, runner: String, ttlMs: Int, batches: [(batch: JournalBatch, epoch: Int)], to sink: inout some RedisArgumentSink
    ) {
        sink.appendArgument(node)
        sink.appendArgument(decimal: Int64(ttlMs))
        sink.appendArgument(decimal: Int64(batches.count))
        // One array for every accepted call's entry: appending it shares its storage.
        let needsReturn = Array(runValue(.needsReturn, runner: runner).utf8)
        for (batch, epoch) in batches { write(batch, epoch: epoch, runner: runner, needsReturn: needsReturn, to: &sink) }
    }

    /// Writes one batch's part of a round.
    private static func write(
        _ batch: JournalBatch, epoch: Int, runner: String, needsReturn: [UInt8], to sink: inout some RedisArgumentSink
    ) {
        func add(_ n: Int64?) {
            if let n { sink.appendArgument(decimal: n) } else { sink.appendArgument(Self.empty) }
        }
        sink.appendArgument(batch.session)
        sink.appendArgument(decimal: Int64(epoch))
        sink.appendArgument((batch.created != nil ? "c" : "") + (batch.isSnapshot ? "s" : ""))
        add(batch.lastSeq)
        add(batch.lastCall)
        add(batch.acked)
        sink.appendArgument(batch.ready.map { $0 ? "1" : "0" } ?? "")
        add(batch.nextCallbackId)
        sink.appendArgument(batch.tags.map(tagsJSON) ?? "")
        sink.appendArgument(decimal: Int64(batch.lateConsumed))
        if let c = batch.created {
            sink.appendArgument(c.token)
            sink.appendArgument(c.origin ?? "")
            sink.appendArgument(c.peerAddress)
            sink.appendArgument(decimal: c.createdAtMs)
        } else {
            for _ in 0..<4 { sink.appendArgument(Self.empty) }
        }
        sink.appendArgument(decimal: Int64(batch.messages.count * 2))
        for m in batch.messages {
            sink.appendArgument(decimal: m.seq)
            sink.appendArgument(m.bytes)
        }
        // The run table: the calls accepted, then each message's effect (a call that ran
        // ahead of its acceptance's write has both in one batch, its answer last), then a
        // snapshot's table.
        var run = HashChanges(capacity: batch.messages.count + batch.accepted.count + batch.runTable.count)
        // Accepted in this batch: new entries (a call that ran ahead and answered in this
        // batch too leaves nothing to write in the table).
        for id in batch.accepted { run.create(id, with: needsReturn) }
        for m in batch.messages {
            guard let change = m.run else { continue }
            run.change(change.id, to: change.entry.map { Array(runValue($0, runner: change.runner ?? runner).utf8) })
        }
        for r in batch.runTable { run.change(r.id, to: Array(runValue(r.entry, runner: r.runner ?? runner).utf8)) }
        run.write(to: &sink)
        var native = HashChanges(capacity: batch.nativeCalls.count)
        for n in batch.nativeCalls { native.change(n.callbackId, to: n.origin.map { Array($0.utf8) }) }
        native.write(to: &sink)
        var held = HashChanges(capacity: batch.held.count)
        for h in batch.held { held.change(h.callbackId, to: h.tail.flatMap { $0.isEmpty ? nil : $0 }) }
        held.write(to: &sink)
    }

    private static let empty: [UInt8] = []

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

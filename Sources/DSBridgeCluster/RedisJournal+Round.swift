// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis
import Synchronization

/// Group commit: one round trip writes every session that changed since the last one.
extension RedisJournal {
    /// The work of a round, filled when the client's thread builds it.
    final class Round: Sendable {
        /// The batches written by the round's journal script, in order.
        let batches = Mutex<[(session: BridgeSession, batch: JournalBatch)]>([])
        /// The sessions whose late lists the round reads (one command each, after the script).
        let lateReads = Mutex<[String]>([])
        /// The answers to other nodes' native calls the round publishes (one command each,
        /// before the script).
        let answers = Mutex<[PassedAnswer]>([])
        /// Whether the client built it (a send that fails at once never does).
        let built = Atomic<Bool>(false)
    }

    /// Queues a round with the client: it is built when the client's thread is about to
    /// write, so everything that changed until then goes in it. When that thread sleeps with
    /// nothing in flight, the caller builds and writes the round itself: the round's write
    /// does not wait for the thread to wake (one hand-off less on a call's path at low load).
    func queueRound() {
        let round = Round()
        let prepare: @Sendable () -> [RedisCommand]? = { [self] in build(round) }
        let completion: RedisClient.Completion = { [self] result in finish(round, result) }
        if client.sendIfIdle(prepare: prepare, completion: completion) { return }
        client.send(prepare: prepare, completion: completion)
    }

    /// Client thread: takes the dirty sessions' batches (one script call for all of them)
    /// and the late lists to read.
    private func build(_ round: Round) -> [RedisCommand]? {
        round.built.store(true, ordering: .releasing)
        let (sessions, lateDue, retried) = state.withLock { s -> ([BridgeSession], Set<String>, [PassedAnswer]) in
            s.roundQueued = false
            defer {
                s.dirty.removeAll(keepingCapacity: true)
                s.lateDue.removeAll()
                s.answersToRetry.removeAll()
            }
            return (s.dirty, s.lateDue, s.answersToRetry)
        }
        var batches: [(session: BridgeSession, batch: JournalBatch)] = []
        var withEpochs: [(batch: JournalBatch, epoch: Int)] = []
        batches.reserveCapacity(sessions.count)
        withEpochs.reserveCapacity(sessions.count)
        for session in sessions {
            guard let batch = session.takeJournalBatch() else { continue }
            let epoch = state.withLock { s -> Int in
                if batch.lateConsumed > 0 { s.untrimmedLate[batch.session, default: 0] -= batch.lateConsumed }
                if let e = s.epochs[batch.session] { return e }
                s.epochs[batch.session] = 1  // made here
                return 1
            }
            batches.append((session, batch))
            withEpochs.append((batch, epoch))
        }
        // Answers go ahead of the script that makes their acceptance durable, in the same
        // write: if the script runs, they were published (docs/CLUSTER.md, rule 1's exception).
        let answers = retried + batches.flatMap(\.batch.answers)
        var commands = answers.compactMap(Self.publishCommand)
        round.answers.withLock { $0 = answers }
        if !withEpochs.isEmpty {
            commands.append(JournalArguments.command(node: nodeID, runner: runnerID, ttlMs: ttlMs, batches: withEpochs))
        }
        var reads: [String] = []
        for id in lateDue {
            guard let (epoch, offset) = state.withLock({ s in s.epochs[id].map { ($0, s.untrimmedLate[id] ?? 0) } }) else { continue }
            commands.append(ClusterScripts.readLateScript.evalSHA(arguments: [id, nodeID, String(epoch), String(offset)]))
            reads.append(id)
        }
        round.batches.withLock { $0 = batches }
        round.lateReads.withLock { $0 = reads }
        return commands
    }

    /// Answers kept for the next round while Redis cannot be reached (the oldest go first:
    /// their callers time out meanwhile).
    static let maxAnswersToRetry = 10_000

    /// The command that passes `answer` to the node that made its call (`nil`: an origin
    /// that cannot be read).
    static func publishCommand(_ answer: PassedAnswer) -> RedisCommand? {
        guard let origin = CallOrigin(parsing: answer.origin) else { return nil }
        let message = NodeMessage.answer(ref: origin.ref, event: answer.event, call: answer.pageCall)
        return RedisCommand("PUBLISH", ClusterKeys.channel(origin.node), message.encoded())
    }

    /// Client thread: the round's replies (or why there are none).
    private func finish(_ round: Round, _ result: Result<[RedisValue], RedisClientError>) {
        // A send that failed at once (Redis down) was never built: its sessions are still
        // dirty; take their batches now, so they learn the journal is unavailable.
        if case .failure = result, !round.built.load(ordering: .acquiring) { _ = build(round) }
        let batches = round.batches.withLock { $0 }
        let reads = round.lateReads.withLock { $0 }
        let answers = round.answers.withLock { $0 }
        var replies: [RedisValue] = []
        switch result {
        case .success(let r): replies = Array(r.dropFirst(answers.compactMap(Self.publishCommand).count))
        case .failure(let error):
            if !batches.isEmpty { logger.warning("journal write failed: \(error); sessions go on unjournaled until Redis is back") }
            // Published or not: sent again with the next round (their origins drop doubles).
            if !answers.isEmpty {
                state.withLock { s in
                    s.answersToRetry = Array((answers + s.answersToRetry).suffix(Self.maxAnswersToRetry))
                }
            }
        }
        var next = 0
        if !batches.isEmpty {
            let statuses = replies.first?.arrayValue ?? []
            if let reply = replies.first, statuses.isEmpty {
                if RedisScript.isNoScript(reply) {
                    // Someone flushed the scripts: load them again, then every session writes a snapshot.
                    client.send(ClusterScripts.all.map(\.loadCommand)) { [self] _ in
                        guard let bridge else { return }
                        bridge.executor.execute { for s in bridge.sessions { s.journalReconnected() } }
                    }
                }
                if let message = reply.errorMessage { logger.error("journal write refused: \(message)") }
            }
            for (index, item) in batches.enumerated() {
                let outcome: JournalOutcome
                switch index < statuses.count ? statuses[index].stringValue : nil {
                case "ok"?: outcome = .written
                case "moved"?, "gone"?:
                    _ = state.withLock { $0.epochs.removeValue(forKey: item.batch.session) }
                    outcome = .moved
                default:
                    outcome = .unavailable
                    metrics.journalFailures.increment()
                }
                item.session.journalWritten(item.batch, outcome: outcome)
            }
            next = 1
        }
        for (offset, id) in reads.enumerated() {
            let index = next + offset
            guard index < replies.count, let list = replies[index].arrayValue else { continue }
            let messages = list.compactMap { $0.bytesValue.flatMap(LateItem.decode) }
            guard !messages.isEmpty, let session = bridge?.session(id: id) else { continue }
            state.withLock { $0.untrimmedLate[id, default: 0] += messages.count }
            bridge?.executor.execute { session.appendLate(messages) }
        }
    }
}

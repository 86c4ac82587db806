// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis
import Synchronization

/// Group commit: one round trip writes every session that changed since the last one.
extension RedisJournal {
    /// What one command of a round is for, to read its reply.
    enum RoundItem: Sendable {
        case batch(BridgeSession, JournalBatch)
        case late(session: String)
    }

    /// The items of a round, filled when the client's thread builds it.
    final class Round: Sendable {
        let items = Mutex<[RoundItem]>([])
        /// Whether the client built it (a send that fails at once never does).
        let built = Atomic<Bool>(false)
    }

    /// Queues a round with the client: it is built when the client's thread is about to
    /// write, so everything that changed until then goes in it.
    func queueRound() {
        let round = Round()
        client.send(prepare: { [self] in build(round) }, completion: { [self] result in finish(round, result) })
    }

    /// Client thread: takes the dirty sessions' batches and the late lists to read.
    private func build(_ round: Round) -> [RedisCommand]? {
        round.built.store(true, ordering: .releasing)
        let (sessions, lateDue) = state.withLock { s -> ([BridgeSession], Set<String>) in
            s.roundQueued = false
            defer {
                s.dirty.removeAll(keepingCapacity: true)
                s.lateDue.removeAll()
            }
            return (s.dirty, s.lateDue)
        }
        var commands: [RedisCommand] = []
        var items: [RoundItem] = []
        commands.reserveCapacity(sessions.count + lateDue.count)
        items.reserveCapacity(sessions.count + lateDue.count)
        for session in sessions {
            guard let batch = session.takeJournalBatch() else { continue }
            let epoch = state.withLock { s -> Int in
                if batch.lateConsumed > 0 { s.untrimmedLate[batch.session, default: 0] -= batch.lateConsumed }
                if let e = s.epochs[batch.session] { return e }
                s.epochs[batch.session] = 1  // made here
                return 1
            }
            let arguments = JournalArguments.make(batch, node: nodeID, runner: runnerID, epoch: epoch, ttlMs: ttlMs)
            commands.append(RedisCommand(arguments: [Array("EVALSHA".utf8), Array(ClusterScripts.journalScript.sha1.utf8), [48]] + arguments))
            items.append(.batch(session, batch))
        }
        for id in lateDue {
            guard let (epoch, offset) = state.withLock({ s in s.epochs[id].map { ($0, s.untrimmedLate[id] ?? 0) } }) else { continue }
            commands.append(ClusterScripts.readLateScript.evalSHA(arguments: [id, nodeID, String(epoch), String(offset)]))
            items.append(.late(session: id))
        }
        round.items.withLock { $0 = items }
        return commands
    }

    /// Client thread: the round's replies (or why there are none).
    private func finish(_ round: Round, _ result: Result<[RedisValue], RedisClientError>) {
        // A send that failed at once (Redis down) was never built: its sessions are still
        // dirty; take their batches now, so they learn the journal is unavailable.
        if case .failure = result, !round.built.load(ordering: .acquiring) { _ = build(round) }
        let items = round.items.withLock { $0 }
        let replies: [RedisValue]
        switch result {
        case .success(let r): replies = r
        case .failure(let error):
            if !items.isEmpty { logger.warning("journal write failed: \(error); sessions go on unjournaled until Redis is back") }
            replies = []
        }
        var reloadScripts = false
        for (index, item) in items.enumerated() {
            let reply = index < replies.count ? replies[index] : nil
            switch item {
            case .batch(let session, let batch):
                let outcome: JournalOutcome
                switch reply?.stringValue {
                case "ok"?: outcome = .written
                case "moved"?, "gone"?:
                    _ = state.withLock { $0.epochs.removeValue(forKey: batch.session) }
                    outcome = .moved
                default:
                    if let reply, RedisScript.isNoScript(reply) { reloadScripts = true }
                    if let message = reply?.errorMessage { logger.error("journal write refused: \(message)") }
                    outcome = .unavailable
                    metrics.journalFailures.increment()
                }
                session.journalWritten(batch, outcome: outcome)
            case .late(let id):
                guard let list = reply?.arrayValue else { continue }
                let messages = list.compactMap { $0.bytesValue.flatMap(LateItem.decode) }
                guard !messages.isEmpty, let session = bridge?.session(id: id) else { continue }
                state.withLock { $0.untrimmedLate[id, default: 0] += messages.count }
                bridge?.executor.execute { session.appendLate(messages) }
            }
        }
        if reloadScripts { client.send(ClusterScripts.all.map(\.loadCommand)) { _ in } }
    }
}

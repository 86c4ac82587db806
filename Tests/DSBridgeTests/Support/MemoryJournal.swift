// SPDX-License-Identifier: MIT
import DSBridge
import Synchronization

/// What a cluster's journal holds, in memory: the same records and rules as the Redis
/// layout of docs/CLUSTER.md (fencing by node and epoch, the run table, late messages), for
/// tests of the bridge's side of the write-ahead rules without Redis.
final class JournalStore: Sendable {
    struct Record: Sendable {
        var identity: SessionIdentity
        var node: String
        var epoch = 1
        var tags: [String] = []
        var ready = false
        var lastCall: Int64 = 0
        var lastSeq: Int64 = 0
        var acked: Int64 = 0
        var nextCallbackId: Int64 = 1
        var messages: [Int64: [UInt8]] = [:]
        /// call id → (node, entry)
        var run: [Int64: (node: String, entry: RunEntry)] = [:]
        var nativeCalls: [Int64: String] = [:]
        var held: [Int64: [UInt8]] = [:]
        var late: [LateMessage] = []
    }

    let records = Mutex<[String: Record]>([:])
    /// Nodes that are gone.
    let lostNodes = Mutex<Set<String>>([])
    /// Journals by node, for `moved` notices.
    let journals = Mutex<[String: MemoryJournal]>([:])

    func record(_ id: String) -> Record? { records.withLock { $0[id] } }

    /// Applies `batch` as the Redis script does. - Returns: `moved` when `node`/`epoch`
    /// no longer own the session.
    func apply(_ batch: JournalBatch, node: String, epoch: Int) -> JournalOutcome {
        records.withLock { all in
            var r: Record
            if let existing = all[batch.session] {
                guard existing.node == node, existing.epoch == epoch else { return .moved }
                r = existing
            } else {
                guard let created = batch.created else { return .moved }  // ended or expired
                r = Record(identity: created, node: node)
            }
            if batch.isSnapshot {
                r.messages = [:]
                r.run = [:]
                r.nativeCalls = [:]
                r.held = [:]
                for (id, entry, runner) in batch.runTable { r.run[id] = (runner ?? node, entry) }
            }
            for id in batch.accepted { r.run[id] = (node, .needsReturn) }
            for m in batch.messages {
                r.messages[m.seq] = m.bytes
                if let run = m.run {
                    if let entry = run.entry { r.run[run.id] = (run.runner ?? node, entry) } else { r.run.removeValue(forKey: run.id) }
                }
            }
            r.lastSeq = batch.lastSeq
            if let c = batch.lastCall { r.lastCall = max(r.lastCall, c) }
            if let a = batch.acked {
                r.acked = max(r.acked, a)
                r.messages = r.messages.filter { $0.key > r.acked }
            }
            for n in batch.nativeCalls { r.nativeCalls[n.callbackId] = n.origin }
            for h in batch.held { r.held[h.callbackId] = h.tail }
            if let ready = batch.ready { r.ready = ready }
            if let next = batch.nextCallbackId { r.nextCallbackId = next }
            if let tags = batch.tags { r.tags = tags }
            r.late.removeFirst(min(batch.lateConsumed, r.late.count))
            all[batch.session] = r
            return .written
        }
    }
}

/// One node's journal on a ``JournalStore``. Writes happen only when the test calls
/// ``flush()``, so a test sees the state between "made" and "durable".
final class MemoryJournal: SessionJournal {
    let nodeID: String
    let store: JournalStore
    private struct State {
        var bridge: Bridge?
        var dirty: [BridgeSession] = []
        var epochs: [String: Int] = [:]
        var unavailable = false
        var passed: [(session: String, messages: [LateMessage])] = []
        var ended: [String] = []
    }
    private let state = Mutex(State())

    init(node: String, store: JournalStore) {
        nodeID = node
        self.store = store
        store.journals.withLock { $0[node] = self }
    }

    /// The bridge this journal serves (set once, after the bridge is made).
    var bridge: Bridge? {
        get { state.withLock { $0.bridge } }
        set { state.withLock { $0.bridge = newValue } }
    }

    /// Writes fail with `unavailable` while set.
    func setUnavailable(_ on: Bool) { state.withLock { $0.unavailable = on } }

    /// Sessions that ended here.
    var ended: [String] { state.withLock { $0.ended } }
    /// Late messages passed on, by session.
    var passed: [(session: String, messages: [LateMessage])] { state.withLock { $0.passed } }

    func sessionNeedsWrite(_ session: BridgeSession) {
        state.withLock { $0.dirty.append(session) }
    }

    func sessionEnded(_ session: BridgeSession) {
        state.withLock { $0.ended.append(session.id) }
        store.records.withLock { _ = $0.removeValue(forKey: session.id) }
    }

    func sessionMovedAway(_ session: BridgeSession) {}

    func passLate(_ messages: [LateMessage], of session: BridgeSession) {
        // Recorded last: a test that sees it may flush the owner's journal at once.
        defer { state.withLock { $0.passed.append((session.id, messages)) } }
        let node = nodeID
        let stamped = messages.map { m in
            LateMessage(message: m.message, run: m.run.map { RunChange(id: $0.id, entry: $0.entry, runner: $0.runner ?? node) })
        }
        let owner = store.records.withLock { all -> String? in
            all[session.id]?.late.append(contentsOf: stamped)
            return all[session.id]?.node
        }
        // The owner's nudge: it appends them now (what it read before is behind its offset,
        // as the Redis journal reads the late list).
        if let owner, let journal = store.journals.withLock({ $0[owner] }), let bridge = journal.bridge,
            let s = bridge.session(id: session.id)
        {
            s.appendLate(stamped)
        }
    }

    /// Writes every dirty session's batch (one round), as the Redis journal's group commit
    /// does. - Returns: how many batches were written.
    @discardableResult
    func flush() -> Int {
        var written = 0
        while true {
            let (dirty, unavailable) = state.withLock { s -> ([BridgeSession], Bool) in
                defer { s.dirty.removeAll() }
                return (s.dirty, s.unavailable)
            }
            if dirty.isEmpty { return written }
            for session in dirty {
                guard let batch = session.takeJournalBatch() else { continue }
                written += 1
                if unavailable {
                    session.journalWritten(batch, outcome: .unavailable)
                    continue
                }
                // Answers to other nodes' calls go out ahead of the write, as the Redis
                // journal publishes them (also when the write turns out fenced).
                for answer in batch.answers {
                    guard let origin = CallOrigin(parsing: answer.origin),
                        let b = store.journals.withLock({ $0[origin.node] })?.bridge
                    else { continue }
                    b.deliverForwardedAnswer(ref: origin.ref, answer.event, pageCall: answer.pageCall)
                }
                let epoch = state.withLock { $0.epochs[session.id] ?? 1 }
                session.journalWritten(batch, outcome: store.apply(batch, node: nodeID, epoch: epoch))
            }
        }
    }

    func takeOver(
        token: String, ack: Int64, peerAddress: String,
        completion: @escaping @Sendable (Result<BridgeSession, SessionRefusal>) -> Void
    ) {
        let lost = store.lostNodes.withLock { $0 }
        let claimed = store.records.withLock { all -> (JournalStore.Record, String)? in
            guard let (id, r) = all.first(where: { $0.value.identity.token == token }) else { return nil }
            var claimed = r
            claimed.epoch += 1
            let previous = r.node
            claimed.node = nodeID
            all[id] = claimed
            return (r, previous)
        }
        guard let (r, previous) = claimed, let bridge else {
            return completion(.failure(SessionRefusal(code: 4004, reason: "unknown session")))
        }
        state.withLock { $0.epochs[r.identity.id] = r.epoch + 1 }
        if ack > r.lastSeq { return completion(.failure(SessionRefusal(code: 4004, reason: "unknown session"))) }
        var snapshot = SessionSnapshot(identity: r.identity)
        snapshot.tags = r.tags
        snapshot.ready = r.ready
        snapshot.lastCall = r.lastCall
        snapshot.lastSeq = r.lastSeq
        snapshot.acked = r.acked
        snapshot.nextCallbackId = r.nextCallbackId
        snapshot.messages = r.messages.sorted { $0.key < $1.key }.map { JournalMessage(seq: $0.key, bytes: $0.value) }
        snapshot.run = r.run.sorted { $0.key < $1.key }.map { ($0.key, $0.value.node, $0.value.entry) }
        snapshot.nativeCalls = r.nativeCalls.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        snapshot.held = r.held.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        snapshot.late = r.late
        snapshot.lostNodes = lost
        let store = self.store
        snapshot.nativeCallHandler = { origin, _ in
            { event in
                // NODE|REF: deliver on that node's bridge.
                let parts = origin.split(separator: "|")
                guard parts.count == 2, let ref = Int64(parts[1]),
                    let journal = store.journals.withLock({ $0[String(parts[0])] }), let b = journal.bridge
                else { return }
                b.deliverForwardedAnswer(ref: ref, event)
            }
        }
        // The previous owner, if alive, lets go.
        if previous != nodeID, !lost.contains(previous), let old = store.journals.withLock({ $0[previous] }),
            let oldSession = old.bridge?.session(id: r.identity.id)
        {
            oldSession.moveAway()
        }
        guard let session = bridge.restoreSession(snapshot) else {
            return completion(.failure(SessionRefusal(code: 4004, reason: "unknown session")))
        }
        completion(.success(session))
    }
}

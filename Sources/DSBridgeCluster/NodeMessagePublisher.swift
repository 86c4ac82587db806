// SPDX-License-Identifier: MIT
import DSBridgeRedis
import Synchronization

/// Publishes node messages (docs/CLUSTER.md, "Node messages") on the messenger's
/// connection. Messages for one node that are published while the connection is busy with
/// a round trip wait here and go out together at the next one, as one `PUBLISH` of a JSON
/// array (``NodeMessageBatch``), in the order published: under load a node pays one
/// command, one Redis delivery and one subscriber read per batch instead of per message;
/// when the connection is idle a message goes out at once, alone, written by the publishing
/// thread itself (``RedisClient/sendIfIdle(_:completion:)``: no wake-up of the messenger's
/// thread on its way).
///
/// Every node message goes through here, so the messages for one node keep their order.
final class NodeMessagePublisher: Sendable {
    /// What a publisher reports of one message: whether a node's subscriber received it.
    typealias Delivered = @Sendable (Bool) -> Void

    private struct Waiting: Sendable {
        var batch = NodeMessageBatch()
        var delivered: [Delivered] = []
    }

    private struct State: Sendable {
        /// Messages not yet taken by a round trip, by node, in the order nodes were first named.
        var waiting: [(node: String, messages: Waiting)] = []
        /// A batch is queued with the messenger and has not taken the waiting messages yet.
        var queued = false
        /// The nodes known to read batched payloads (``NodeMessageReaders``); the others
        /// get one message per `PUBLISH`.
        var batchReaders: Set<String>
    }

    /// What one queued batch took when the messenger built it.
    private final class Taken: Sendable {
        let list = Mutex<[(node: String, messages: Waiting)]?>(nil)
    }

    /// A batch for one node grows to about this size; later messages go in the next
    /// `PUBLISH` of the same round trip.
    static let maxPayloadBytes = 256 * 1024

    private let messenger: RedisClient
    private let state: Mutex<State>

    /// - Parameter batchReaders: the nodes known to read batched payloads at first (this
    ///   node itself); ``setBatchReaders(_:)`` updates them.
    init(messenger: RedisClient, batchReaders: Set<String>) {
        self.messenger = messenger
        state = Mutex(State(batchReaders: batchReaders))
    }

    /// The nodes that read batched payloads now (as their records say).
    func setBatchReaders(_ nodes: Set<String>) {
        state.withLock { $0.batchReaders = nodes }
    }

    /// Publishes `message` to node `node`'s channel. `delivered` learns whether the node
    /// received it (`false` also when Redis is unreachable).
    func publish(_ message: NodeMessage, to node: String, delivered: Delivered? = nil) {
        publish(encoded: message.encoded(), to: node, delivered: delivered)
    }

    /// Publishes an encoded node message (``NodeMessage/encoded()``).
    func publish(encoded message: [UInt8], to node: String, delivered: Delivered? = nil) {
        // Nothing waits here and the messenger's thread sleeps: written at once, by this
        // thread (one wake-up less on the way of a lone message, as an admin call's).
        if state.withLock({ !$0.queued && $0.waiting.isEmpty }), publishIfIdle(message, to: node, delivered: delivered) { return }
        let queue = state.withLock { s -> Bool in
            if s.batchReaders.contains(node), let i = s.waiting.lastIndex(where: { $0.node == node }),
                s.waiting[i].messages.batch.byteCount < Self.maxPayloadBytes
            {
                s.waiting[i].messages.batch.append(message)
                if let delivered { s.waiting[i].messages.delivered.append(delivered) }
            } else {
                var waiting = Waiting()
                waiting.batch.append(message)
                if let delivered { waiting.delivered.append(delivered) }
                s.waiting.append((node, waiting))
            }
            if s.queued { return false }
            s.queued = true
            return true
        }
        if queue { queueBatch() }
    }

    /// Publishes `message` alone, written by this thread, if the messenger's thread sleeps
    /// with nothing in flight. - Returns: whether it was.
    private func publishIfIdle(_ message: [UInt8], to node: String, delivered: Delivered?) -> Bool {
        messenger.sendIfIdle([RedisCommand("PUBLISH", ClusterKeys.channel(node), message)]) { result in
            guard let delivered else { return }
            if case .success(let r) = result, let n = r.first?.integerValue, n > 0 { delivered(true) } else { delivered(false) }
        }
    }

    private func queueBatch() {
        let taken = Taken()
        messenger.send(prepare: { [self] in
            let list = takeWaiting()
            taken.list.withLock { $0 = list }
            return list.map { RedisCommand("PUBLISH", ClusterKeys.channel($0.node), $0.messages.batch.payload) }
        }) { [self] result in
            // Not built: the messenger refused the batch at once (Redis unreachable); what
            // waits fails now, and the next message queues a batch again.
            let list = taken.list.withLock { $0 } ?? takeWaiting()
            let replies = (try? result.get()) ?? []
            for (index, entry) in list.enumerated() {
                let received = index < replies.count && (replies[index].integerValue ?? 0) > 0
                for delivered in entry.messages.delivered { delivered(received) }
            }
        }
    }

    private func takeWaiting() -> [(node: String, messages: Waiting)] {
        state.withLock { s in
            s.queued = false
            defer { s.waiting = [] }
            return s.waiting
        }
    }
}

/// Node messages for one node, as the payload of one `PUBLISH`: a single message as it is
/// (what nodes always sent), several as a JSON array of them.
struct NodeMessageBatch: Sendable {
    private var bytes: [UInt8] = []
    private(set) var count = 0
    /// The payload's size so far.
    var byteCount: Int { bytes.count }

    init() {}

    /// Adds an encoded message (a JSON object).
    mutating func append(_ message: [UInt8]) {
        if count == 0 {
            bytes = message
        } else {
            if count == 1 { bytes.insert(UInt8(ascii: "["), at: 0) }
            bytes.append(UInt8(ascii: ","))
            bytes.append(contentsOf: message)
        }
        count += 1
    }

    /// The `PUBLISH` payload.
    var payload: [UInt8] {
        count > 1 ? bytes + [UInt8(ascii: "]")] : bytes
    }
}

/// Which nodes read batched node messages (a `PUBLISH` payload that is a JSON array): a
/// node says so in its record's `reads` field as `batches|INCARNATION`. The incarnation ties
/// the claim to the process that wrote it: a build without batches started under the same
/// name writes a new `inc` but leaves the field, which then no longer matches. Nodes that
/// do not say so (older builds) get one message per `PUBLISH`, so a cluster can be upgraded
/// one node at a time.
enum NodeMessageReaders {
    /// The `reads` field this process writes.
    static func field(incarnation: String) -> String { "batches|\(incarnation)" }

    /// Whether a record with `reads` and `inc` was written by a process that reads batches.
    static func readsBatches(_ reads: String?, incarnation: String) -> Bool {
        reads == field(incarnation: incarnation)
    }
}

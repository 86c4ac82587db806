// SPDX-License-Identifier: MIT

/// Where a cluster keeps what a session needs to continue on another node (docs/CLUSTER.md).
///
/// The bridge calls it; it never calls the bridge back under a lock. A session with a
/// journal obeys the write-ahead rules: a socket call runs only once its acceptance is
/// durable, and a sequenced message reaches the socket only once it is durable. Without a
/// journal (``Bridge/journal`` `nil`) none of this exists.
public protocol SessionJournal: Sendable {
    /// This node's name in the cluster (`--node-id`).
    var nodeID: String { get }

    /// `session` has records to write (it went from clean to dirty). The journal later
    /// calls ``BridgeSession/takeJournalBatch()`` on its own thread, writes what it got and
    /// reports with ``BridgeSession/journalWritten(_:)``. Called on any thread, never under
    /// a session lock; must return at once.
    func sessionNeedsWrite(_ session: BridgeSession)

    /// The transport's network thread ended a pass of its loop (``Bridge/runDeferredWork()``):
    /// what it registered during the pass may go out now, in one write. A journal may hold
    /// back a write asked for on that thread (``Bridge/isOnServiceThread``) until then, so a
    /// frame's records go together and the frame's own work (an answer to another node) is
    /// not behind the write. The default does nothing.
    func serviceLoopPassEnded()

    /// `session` ended here (closed, expired, shed): its records can go. Not called for a
    /// session that moved to another node.
    func sessionEnded(_ session: BridgeSession)

    /// `session` moved to another node: it only finishes the calls still running here (their
    /// messages come through ``passLate(_:of:)``). A drain waits for them.
    func sessionMovedAway(_ session: BridgeSession)

    /// `session` moved to another node, and these messages were produced for it here
    /// afterwards (or were not durable when it moved): pass them to its owner, in order.
    func passLate(_ messages: [LateMessage], of session: BridgeSession)

    /// A `hello` names `token`, which no session of this node holds: take the session over
    /// from the journal (docs/CLUSTER.md, "Taking a session over"). `completion` gets the
    /// restored session (``Bridge/restoreSession(_:)``), or the refusal to close with.
    /// Called on any thread; `completion` may run on any thread, at most once.
    func takeOver(
        token: String, ack: Int64, peerAddress: String,
        completion: @escaping @Sendable (Result<BridgeSession, SessionRefusal>) -> Void)
}

extension SessionJournal {
    public func serviceLoopPassEnded() {}
}

/// What a call accepted by a journaled session still needs (its run-table entry).
public enum RunEntry: Sendable, Equatable {
    /// The call runs and has no `ret` yet.
    case needsReturn
    /// Its `ret` went out; completions for `stub` follow until the final one.
    case needsCompletion(stub: String)
}

/// What a message does to its call's run-table entry.
public struct RunChange: Sendable, Equatable {
    public let id: Int64
    /// The entry from now on; `nil`: the call finished (the entry leaves).
    public let entry: RunEntry?
    /// The node that runs the call, when it is not the one writing the change (a late
    /// message from the node the session left).
    public let runner: String?

    public init(id: Int64, entry: RunEntry?, runner: String? = nil) {
        self.id = id
        self.entry = entry
        self.runner = runner
    }
}

/// A message appended to a session's log, as the journal stores it.
public struct JournalMessage: Sendable, Equatable {
    public let seq: Int64
    /// The exact bytes the page receives (they contain `seq`).
    public let bytes: [UInt8]
    /// What it does to its call's run-table entry, if anything.
    public let run: RunChange?

    public init(seq: Int64, bytes: [UInt8], run: RunChange? = nil) {
        self.seq = seq
        self.bytes = bytes
        self.run = run
    }
}

/// A message produced for a session by a node that no longer owns it, without its `seq`
/// (the owner numbers it), with what it does to the run table.
public struct LateMessage: Sendable, Equatable {
    public let message: SequencedMessage
    public let run: RunChange?

    public init(message: SequencedMessage, run: RunChange?) {
        self.message = message
        self.run = run
    }
}

/// Everything a session changed since its last journal write, in the order it changed.
/// Fields that did not change are `nil` or empty.
public struct JournalBatch: Sendable {
    /// The session's public id.
    public let session: String
    /// Set on the first write of a session made on this node: what never changes.
    public var created: SessionIdentity?
    /// New messages, in `seq` order.
    public var messages: [JournalMessage] = []
    /// The session's `lastSeq` after this batch.
    public var lastSeq: Int64 = 0
    /// The highest call id accepted, when it moved.
    public var lastCall: Int64?
    /// The highest `seq` the page acknowledged, when it moved.
    public var acked: Int64?
    /// Calls accepted (each gets the run-table entry ``RunEntry/needsReturn``), in order.
    public var accepted: [Int64] = []
    /// Native-initiated calls waiting for the page, by `callbackId` (`nil`: the call ended).
    public var nativeCalls: [(callbackId: Int64, origin: String?)] = []
    /// Invokes held before `dsinit` (`nil`: released or abandoned).
    public var held: [(callbackId: Int64, tail: [UInt8]?)] = []
    /// The page signalled `dsinit`.
    public var ready: Bool?
    /// The next `callbackId`, when it moved.
    public var nextCallbackId: Int64?
    /// The session's tags, when they changed.
    public var tags: [String]?
    /// A full rewrite (after Redis came back): the journal replaces what it holds with
    /// this batch, whose ``runTable`` then holds every open call and whose
    /// ``nativeCalls``, ``held``, ``ready``, ``nextCallbackId``, ``tags``, ``lastCall``,
    /// ``acked`` and ``messages`` (every unacknowledged one) are complete.
    public var isSnapshot = false
    /// Snapshots only: every call accepted and not finished (`runner`: the node running
    /// it, when not this one).
    public var runTable: [(id: Int64, entry: RunEntry, runner: String?)] = []
    /// Late messages (from the head of the journal's late list) this batch appended: the
    /// journal removes them from the list in the same write.
    public var lateConsumed = 0
    /// Answers to native calls of other nodes whose acceptance this batch carries: the
    /// journal publishes them to their origins in the same write, ahead of it.
    public var answers: [PassedAnswer] = []

    /// The marks this batch moves once it is durable.
    let throughSeq: Int64
    let throughCall: Int64

    /// An empty batch of session `session` (tests of a journal's encoding).
    package static func forTests(session: String) -> JournalBatch {
        JournalBatch(session: session, throughSeq: 0, throughCall: 0)
    }

    /// Whether the batch carries nothing to write.
    public var isEmpty: Bool {
        created == nil && messages.isEmpty && lastCall == nil && acked == nil && accepted.isEmpty && nativeCalls.isEmpty
            && held.isEmpty && ready == nil && nextCallbackId == nil && tags == nil && !isSnapshot && lateConsumed == 0
            && answers.isEmpty
    }
}

/// What never changes about a session.
public struct SessionIdentity: Sendable, Equatable {
    public let id: String
    public let token: String
    public let peerAddress: String
    public let origin: String?
    /// Milliseconds since 1970.
    public let createdAtMs: Int64

    public init(id: String, token: String, peerAddress: String, origin: String?, createdAtMs: Int64) {
        self.id = id
        self.token = token
        self.peerAddress = peerAddress
        self.origin = origin
        self.createdAtMs = createdAtMs
    }
}

/// How a journal write ended.
public enum JournalOutcome: Sendable, Equatable {
    /// Durable: the marks move, waiting calls run, messages may go out.
    case written
    /// Another node owns the session now: this node lets go of it.
    case moved
    /// The journal is unreachable: the session goes on without it (unjournaled) until the
    /// journal comes back and takes a snapshot.
    case unavailable
}

/// A session as a journal holds it: enough to continue it on another node
/// (``Bridge/restoreSession(_:)``).
public struct SessionSnapshot: Sendable {
    public var identity: SessionIdentity
    public var tags: [String] = []
    public var ready = false
    public var lastCall: Int64 = 0
    public var lastSeq: Int64 = 0
    public var acked: Int64 = 0
    public var nextCallbackId: Int64 = 1
    /// Unacknowledged messages in `seq` order.
    public var messages: [JournalMessage] = []
    /// Calls accepted and not finished, with the node that ran them.
    public var run: [(id: Int64, node: String, entry: RunEntry)] = []
    /// Native-initiated calls waiting for the page, with their origin.
    public var nativeCalls: [(callbackId: Int64, origin: String)] = []
    /// Invokes held before `dsinit`, in `callbackId` order.
    public var held: [(callbackId: Int64, tail: [UInt8])] = []
    /// Messages other nodes produced for the session after it left them.
    public var late: [LateMessage] = []
    /// Nodes that are gone: their run-table entries get their final error.
    public var lostNodes: Set<String> = []
    /// Answers page replies to native calls whose origin is another node.
    public var nativeCallHandler: (@Sendable (_ origin: String, _ callbackId: Int64) -> NativeCallHandler)?

    public init(identity: SessionIdentity) {
        self.identity = identity
    }
}

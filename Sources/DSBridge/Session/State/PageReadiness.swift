// SPDX-License-Identifier: MIT

/// Whether the page signalled `_dsb.dsinit` (PROTOCOL.md 5), and the startup queue that
/// waits for it, as a value owned by ``SessionState``: native-initiated calls made before
/// (held, counted toward the replay bounds) and ``BridgeSession/whenReady(_:)`` bodies.
///
/// Becoming ready releases both, in the order they came; the shell queues the invokes and
/// runs the bodies. Nothing here numbers a message or runs a body.
struct PageReadiness: Sendable {
    /// A held native-initiated call: made before the page signalled `dsinit`.
    struct HeldInvoke: Sendable {
        let callbackId: Int64
        let invoke: EncodedInvoke
        /// Its size as measured when it was made (counted toward the replay bounds).
        let bytes: Int
    }

    /// When a ``BridgeSession/whenReady(_:)`` body runs relative to the page's readiness.
    enum WhenReady: Sendable, Equatable { case now, later, never }

    /// What becoming ready releases, in order.
    struct Release: Sendable {
        /// The held invokes, to queue now.
        let invokes: [HeldInvoke]
        /// ``BridgeSession/whenReady(_:)`` bodies, to run after the invokes went out.
        let waiters: [@Sendable () -> Void]
    }

    private(set) var isReady = false
    /// The invokes held until the page is ready, in the order made.
    private(set) var held: [HeldInvoke] = []
    /// Bytes of the held invokes.
    private(set) var heldBytes = 0
    /// Work waiting for `_dsb.dsinit`; dropped when the session ends.
    private var waiters: [@Sendable () -> Void] = []

    init() {}

    /// Readiness continued from a journal's snapshot: `ready` unless invokes are still
    /// `held` (a dsinit accepted on a lost node: ready once the restore releases them).
    init(restoring ready: Bool, held: [HeldInvoke]) {
        isReady = ready && held.isEmpty
        self.held = held
        heldBytes = held.reduce(0) { $0 + $1.bytes }
    }

    /// Holds `invoke` until the page is ready.
    mutating func hold(_ invoke: HeldInvoke) {
        held.append(invoke)
        heldBytes += invoke.bytes
    }

    /// Drops the held invoke `callbackId` (abandoned: it is never delivered now).
    /// - Returns: whether it was held.
    mutating func dropHeld(_ callbackId: Int64) -> Bool {
        guard let i = held.firstIndex(where: { $0.callbackId == callbackId }) else { return false }
        heldBytes -= held[i].bytes
        held.remove(at: i)
        return true
    }

    /// The page signalled `dsinit`. - Returns: what it releases; `nil` when it had already.
    mutating func markReady() -> Release? {
        if isReady { return nil }
        isReady = true
        let release = Release(invokes: held, waiters: waiters)
        held.removeAll()
        heldBytes = 0
        waiters.removeAll()
        return release
    }

    /// Keeps `body` for ``markReady()`` unless the page is ready (`.now`) or the session
    /// `ended` (`.never`).
    mutating func whenReady(ended: Bool, _ body: @escaping @Sendable () -> Void) -> WhenReady {
        if ended { return .never }
        if isReady { return .now }
        waiters.append(body)
        return .later
    }

    /// The session ended or moved: held invokes and waiting bodies are dropped.
    mutating func removeAll() {
        held.removeAll()
        heldBytes = 0
        waiters.removeAll()
    }
}

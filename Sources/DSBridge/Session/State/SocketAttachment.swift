// SPDX-License-Identifier: MIT

/// Which socket a session writes to, and its grace periods, as a value owned by
/// ``SessionState``: the half of a reconnect (``SessionReconnect``) that the session's lock
/// decides.
///
/// Every attach and detach moves ``generation``, so an expiry scheduled for an earlier
/// grace period no longer applies. `Connection` is the socket type; only its identity is
/// used.
struct SocketAttachment<Connection: AnyObject & Sendable>: Sendable {
    /// The attached socket, if any.
    private(set) var connection: Connection?
    /// Moves on every attach and detach.
    private(set) var generation = 0

    init() {}

    /// `socket` becomes the attached one. - Returns: the one it replaces (to close with
    /// 4009 once `socket` took its welcome, or to restore if it did not).
    mutating func attach(_ socket: Connection) -> Connection? {
        let previous = connection
        connection = socket
        generation += 1
        return previous
    }

    /// The socket being attached closed before it took its welcome: `previous` stays.
    /// - Returns: the generation to schedule an expiry for, when no socket is left.
    mutating func attachFailed(restoring previous: Connection?) -> Int? {
        connection = previous
        return previous == nil ? generation : nil
    }

    /// `socket` closed. - Returns: the generation of the grace period that starts (`nil`
    /// when it was not the attached one, or when `graceApplies` is false: a session that
    /// moved has no grace period here, it only finishes its calls).
    mutating func detach(_ socket: Connection, graceApplies: Bool) -> Int? {
        guard connection === socket else { return nil }
        connection = nil
        generation += 1
        return graceApplies ? generation : nil
    }

    /// Whether the grace period of `generation` ended without a socket.
    func isExpired(generation: Int) -> Bool {
        connection == nil && self.generation == generation
    }

    /// Whether `socket` is the attached one.
    func isAttached(_ socket: Connection) -> Bool { connection === socket }
}

// SPDX-License-Identifier: MIT

/// The timing rules of one WebSocket (PROTOCOL.md 2, 2.3), as pure arithmetic on one
/// millisecond clock: the hello timeout, the `hb` message after `heartbeat` ms without a
/// write, a WebSocket ping every `heartbeat` ms, and the hang-up after 2 × `heartbeat`
/// without traffic from the page (never earlier; time spent with reads paused for
/// backpressure does not count).
///
/// The service loop stamps traffic and writes (O(1), no timer work per frame), keeps one
/// entry per socket in its ``DeadlineQueue`` at ``nextDeadline``, and acts on what
/// ``fire(at:)`` reports when that entry comes due.
struct SocketLiveness: Equatable {
    /// What is due when the socket's deadline fires.
    struct Due: OptionSet, Equatable {
        let rawValue: UInt8
        /// No `hello` within `helloTimeoutMs` of the upgrade: close 4000 `hello timeout`
        /// (unless the hello has arrived meanwhile; the loop asks the connection).
        static let helloTimeout = Due(rawValue: 1)
        /// 2 × `heartbeat` without traffic: close without a close handshake.
        static let hangUp = Due(rawValue: 2)
        /// Send a WebSocket ping.
        static let ping = Due(rawValue: 4)
        /// Nothing written for `heartbeat` ms: send the `hb` message.
        static let heartbeat = Due(rawValue: 8)
    }

    let heartbeatMs: UInt64
    /// When the hello timeout fires; `nil` once it has fired. (Whether the hello came is the
    /// connection's to say, ``BridgeConnection/awaitsHello``: the loop asks it then.)
    private(set) var helloDeadline: UInt64?
    /// Last frame from the page (data, ping or pong), or the end of a read pause.
    private(set) var lastTraffic: UInt64
    /// Last message written to the page (pings excluded: a page's script cannot see them).
    private(set) var lastWrite: UInt64
    /// When the next ping is due.
    private(set) var nextPing: UInt64
    /// Reads are paused (backpressure): silence is not the page's fault.
    private(set) var readsPaused = false

    init(openedAt now: UInt64, heartbeatMs: Int, helloTimeoutMs: Int) {
        self.heartbeatMs = UInt64(max(1, heartbeatMs))
        helloDeadline = now + UInt64(max(0, helloTimeoutMs))
        lastTraffic = now
        lastWrite = now
        nextPing = now + self.heartbeatMs
    }

    /// A frame arrived from the page.
    mutating func received(at now: UInt64) {
        if now > lastTraffic { lastTraffic = now }
    }

    /// A message was written to the page.
    mutating func wrote(at now: UInt64) {
        if now > lastWrite { lastWrite = now }
    }

    /// Reads were paused or resumed. Resuming counts as traffic: the silence while paused
    /// was ours.
    mutating func setReadsPaused(_ paused: Bool, at now: UInt64) {
        if readsPaused && !paused { received(at: now) }
        readsPaused = paused
    }

    /// When the page is hung up on if nothing arrives before (`nil` while reads are paused).
    var hangUpAt: UInt64? { readsPaused ? nil : lastTraffic + 2 * heartbeatMs }

    /// The earliest time something may be due.
    var nextDeadline: UInt64 {
        min(helloDeadline ?? .max, hangUpAt ?? .max, nextPing, lastWrite + heartbeatMs)
    }

    /// What is due at `now`; schedules the next ping and heartbeat as if those due were
    /// sent now (they are written at the socket's next WRITEABLE).
    mutating func fire(at now: UInt64) -> Due {
        var due: Due = []
        if let hello = helloDeadline, now >= hello {
            due.insert(.helloTimeout)
            helloDeadline = nil
        }
        if let hangUp = hangUpAt, now >= hangUp { due.insert(.hangUp) }
        if now >= nextPing {
            due.insert(.ping)
            nextPing = now + heartbeatMs
        }
        if now >= lastWrite + heartbeatMs {
            due.insert(.heartbeat)
            lastWrite = now
        }
        return due
    }
}

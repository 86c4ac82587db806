// SPDX-License-Identifier: MIT
import CLibWebSockets
import DSBridge

/// What a deadline in the service loop's queue stands for.
enum TimerSubject {
    /// A WebSocket's next ``SocketLiveness`` deadline.
    case socket(UInt64)
    /// An HTTP request body's deadline (`bodyTimeoutMs`).
    case exchange(UInt64)
    /// A drain's periodic check.
    case drain
    /// The page listener's pause ends (``AcceptGate/retryAt``).
    case acceptRetry
    /// The admin listener's pause (a failing `accept`) ends.
    case adminAcceptRetry
    /// A socket that sent its close frame has lingered long enough.
    case lingerEnd(UInt64)
    /// A plain-HTTP connection's next deadline (ServiceLoop+PlainHTTP).
    case plain(UInt64)
}

/// Timers of the service thread: one libuv timer at the earliest entry of a heap of
/// deadlines. Nothing here walks every socket; a socket costs one heap entry per
/// `heartbeat` period, whatever it sends.
extension ServiceLoop {
    /// The loop's clock in milliseconds (no system call).
    var loopNow: UInt64 { eventLoop?.now ?? 0 }

    /// Queues `socket`'s next deadline if it is earlier than the one already queued.
    /// (A later one is picked up when the earlier entry comes due.)
    func armLiveness(_ socket: WebSocketState) {
        let next = socket.liveness.nextDeadline
        if let armed = socket.liveness.armedDeadline, armed <= next { return }
        socket.liveness.armedDeadline = next
        deadlines.schedule(.socket(socket.id), at: next)
    }

    /// The loop's timer fired: handles every entry due.
    func deadlinesDue() {
        let now = loopNow
        // How late the timer ran its earliest entry (the loop clock is cached per pass and
        // in milliseconds, so this is accurate to about a millisecond).
        if let earliest = deadlines.earliest, now > earliest {
            LoopLag.record(nanoseconds: (now - earliest) * 1_000_000)
        }
        while let (subject, deadline) = deadlines.popDue(now: now) {
            switch subject {
            case .socket(let id):
                guard let socket = sockets[id], socket.liveness.armedDeadline == deadline else { continue }
                socket.liveness.armedDeadline = nil
                livenessDue(socket, now: now)
            case .exchange(let id):
                guard let exchange = exchanges[id] else { continue }
                bodyDeadlinePassed(exchange, now: now)
            case .drain:
                drainStep(now: now)
            case .acceptRetry:
                acceptRetryDue(now: now)
            case .adminAcceptRetry:
                adminAcceptRetryDue(now: now)
            case .lingerEnd(let id):
                if let socket = sockets[id] { closeSocket(socket) }
            case .plain(let id):
                plainDeadlineDue(id, deadline: deadline, now: now)
            }
        }
        eventLoop?.setTimer(deadline: deadlines.earliest)
    }

    private func livenessDue(_ socket: WebSocketState, now: UInt64) {
        let due = socket.liveness.fire(at: now)
        if due.contains(.helloTimeout) && socket.connection.awaitsHello && socket.forcedClose == nil {
            closeSoon(socket, 4000, "hello timeout")
            return
        }
        if due.contains(.hangUp) {
            // 2 × heartbeat without a frame from the page: drop the TCP connection without
            // a close handshake (a dead peer would not answer it).
            logger.info(
                "WebSocket silent for 2 × heartbeat: hanging up",
                metadata: ["bridge.session": "\(socket.connection.session?.id ?? "-")"])
            closeSocket(socket)
            return
        }
        if due.contains(.ping) { socket.pingDue = true }
        if due.contains(.heartbeat) { socket.heartbeatDue = true }
        if socket.pingDue || socket.heartbeatDue { flushBeforeWait(socket) }
        armLiveness(socket)
    }
}

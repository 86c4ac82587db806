// SPDX-License-Identifier: MIT
import DSBridge
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The page port's WebSockets, served by dsbridged itself (service thread): the upgrade
/// (``WebSocketHandshake``) on the connection the request came on, the page's frames read
/// with ``WebSocketFrameReader``, and the server's frames written by ``pump(_:)``.
///
/// Why not libwebsockets for these: a socket is one heap entry, one poll handle and this
/// state; a call costs one `recv` and one `send`, nothing else per message (lws 4.1 went
/// through its own buffers and callbacks, and on every close scanned its whole descriptor
/// table and every open connection: O(sessions) per close).
extension ServiceLoop {
    /// The bytes of a WebSocket's socket are read into this many at a time.
    static let webSocketReadBytes = 64 << 10

    /// `head` (read from `c` in full) is a WebSocket upgrade whose origin is allowed:
    /// answers it, and `c` carries the session channel from now on, starting with the bytes
    /// the page sent behind the head; or refuses it (``WebSocketHandshake/Refusal``) and closes.
    func upgrade(_ c: PlainHTTPConnection, head: HTTPRequestHead) {
        let accepted: [UInt8]
        switch WebSocketHandshake.answer(to: head) {
        case .failure(let refusal):
            logger.info(
                "WebSocket upgrade refused: \(refusal.reason)", metadata: ["bridge.peer": "\(c.peer)"])
            var answer = HTTPAnswer.text(refusal.status, refusal.reason)
            answer.closeAfter = true
            return refuse(c, answer, extraHeaders: refusal.headers)
        case .success(let bytes):
            accepted = bytes
        }
        if stopping {
            var answer = HTTPAnswer.text(503, "server draining")
            answer.closeAfter = true
            return refuse(c, answer, extraHeaders: [])
        }
        plainConnections.removeValue(forKey: c.id)
        c.exchange = nil
        let early = c.http.upgraded()
        guard c.write(accepted) else {
            c.close()
            pageConnectionClosed()
            return
        }
        let id = makeID()
        let waker = InboxWaker(inbox: server.inbox, id: id)
        let origin = head.header("origin")
        let peer = clientAddresses.resolve(peer: c.peer, forwardedFor: head.header("x-forwarded-for"))
        var headers: [String: String] = [:]
        for name: StaticString in ["cookie", "authorization", "user-agent", "origin", "x-forwarded-for", "host"] {
            if let value = head.header(name) { headers[name.description] = value }
        }
        let connection = bridge.connect(peerAddress: peer, origin: origin, headers: headers, waker: waker)
        let machine = WebSocketConnectionMachine(
            now: loopNow, heartbeatMs: bridge.configuration.heartbeatMs, helloTimeoutMs: bridge.configuration.helloTimeoutMs)
        let socket = WebSocketState(
            id: id, channel: c, connection: connection, waker: waker, machine: machine,
            maxMessageBytes: bridge.configuration.maxMessageBytes)
        sockets[id] = socket
        c.webSocket = socket
        armSocketTimer(socket)
        if !early.isEmpty {
            var bytes = early
            bytes.withUnsafeMutableBytes { received(socket, $0) }
        }
        if !socket.isClosed { updateWebSocketPolling(socket) }
    }

    /// Closes every WebSocket at once (the loop is closing).
    func closeWebSockets() {
        for socket in Array(sockets.values) { closeSocket(socket) }
    }

    // MARK: Events

    func webSocketEvent(_ socket: WebSocketState, readable: Bool, writable: Bool) {
        guard !socket.isClosed else { return }
        if writable {
            guard socket.channel.flush() else { return closeSocket(socket) }
            if socket.channel.isFlushed {
                if socket.machine.isLingering {
                    socket.channel.shutdownOutput()
                } else {
                    pump(socket)
                }
            }
        }
        if readable, !socket.isClosed { readFrames(socket) }
        if !socket.isClosed { updateWebSocketPolling(socket) }
    }

    /// Polls for what the machine wants (input unless reads are paused; a lingering socket
    /// always reads), and for output while the kernel has not taken everything.
    func updateWebSocketPolling(_ socket: WebSocketState) {
        socket.channel.updatePolling(readable: socket.machine.wantsInput)
    }

    /// One read of the socket, its frames handed on; a lingering socket's input is dropped.
    private func readFrames(_ socket: WebSocketState) {
        let scratch = webSocketScratch
        switch socket.channel.read(into: scratch) {
        case .ended:
            closeSocket(socket)
        case .wouldBlock:
            return
        case .bytes(let n):
            if socket.machine.isLingering { return }
            received(socket, UnsafeMutableRawBufferPointer(rebasing: scratch[..<n]))
        }
    }

    /// Bytes the page sent: its frames read and acted on, in order. The connection's wakes
    /// are absorbed meanwhile (its answers to calls run here would each post to the inbox):
    /// the socket is served at the end of this pass instead (``serve(_:)``).
    private func received(_ socket: WebSocketState, _ bytes: UnsafeMutableRawBufferPointer) {
        socket.machine.trafficArrived(now: loopNow)
        socket.waker.absorb()
        flushBeforeWait(socket)
        var failure: WebSocketReadFailure?
        socket.connection.receivingFrames {
            do throws(WebSocketReadFailure) {
                try socket.reader.read(bytes) { input in
                    guard socket.machine.takesFrames, !socket.isClosed else { return }
                    handle(input, on: socket)
                }
            } catch {
                failure = error
            }
        }
        if let error = failure {
            logger.debug(
                "WebSocket closed: \(error.reason)",
                metadata: ["bridge.session": "\(socket.connection.session?.id ?? "-")"])
            close(socket, Int(error.code), error.reason)
        }
    }

    private func handle(_ input: WebSocketInput, on socket: WebSocketState) {
        switch input {
        case .text(let message):
            bytesInThisPass += message.count
            socket.connection.receive(message)
        case .ping(let payload):
            socket.machine.pinged(payload)
        case .pong:
            break
        case .close(let code, _):
            // The page closes: its close frame is answered with the same status (1000 for
            // none, RFC 6455 5.5.1), then the socket lingers until the page hangs up.
            close(socket, code.map(Int.init) ?? 1000, "")
        }
    }

    // MARK: Writing

    /// Once per loop pass, after its socket events (the prepare handler): what the sockets
    /// listed here have to write goes out now, coalesced (every answer a socket got during
    /// the pass in one frame, one `send`).
    func flushInlineAnswers() {
        // (Until none is listed: writing may list a socket again, e.g. a drain's close.)
        while !flushSoon.isEmpty {
            let due = flushSoon
            flushSoon.removeAll(keepingCapacity: true)
            for socket in due {
                socket.flushQueued = false
                guard !socket.isClosed else { continue }
                serve(socket)
            }
        }
        if bytesInThisPass > 0 {
            TransportMetrics.bytesIn.increment(by: bytesInThisPass)
            bytesInThisPass = 0
        }
        if bytesOutThisPass > 0 {
            TransportMetrics.bytesOut.increment(by: bytesOutThisPass)
            bytesOutThisPass = 0
        }
    }

    /// What the inbox does for a woken connection, done here: its wakes are taken (later
    /// ones post again), a change of its read pause applied, and what is due written.
    private func serve(_ socket: WebSocketState) {
        socket.waker.taken()
        applyReadPause(socket)
        pump(socket)
        if !socket.isClosed { updateWebSocketPolling(socket) }
    }

    /// Pauses or resumes reading as the connection wants (backpressure of its calls).
    func applyReadPause(_ socket: WebSocketState) {
        guard socket.machine.setReadsPaused(socket.connection.wantsReadsPaused, now: loopNow) else { return }
        updateWebSocketPolling(socket)
        armSocketTimer(socket)
    }

    /// Lists `socket` for ``flushInlineAnswers()`` at the end of this loop pass.
    func flushBeforeWait(_ socket: WebSocketState) {
        guard !socket.flushQueued, !socket.isClosed else { return }
        socket.flushQueued = true
        flushSoon.append(socket)
    }

    /// Writes what is due, in the machine's order, until nothing is left or the kernel stops
    /// taking bytes: a decided close, a pong owed, a due ping (so a page flooded with
    /// messages still gets pinged), the session's queued frames, then a due `hb`. What the
    /// kernel does not take waits for the socket to be writable.
    func pump(_ socket: WebSocketState) {
        guard !socket.isClosed, !socket.machine.isLingering else { return }
        guard socket.channel.isFlushed else {
            // A close decided while a frame is only partly written (a page that does not
            // read, as one the memory budget ends): the close frame can only follow that
            // frame, so it waits for it at most lingerMs; then the socket is dropped, and
            // with it the frame's buffer, which the memory budget does not count (an
            // attacker holding such sockets open kept up to a frame each, without bound).
            if socket.machine.blockedBehindPartialFrame(now: loopNow, sessionCloses: socket.connection.closeRequested) {
                armSocketTimer(socket)
            }
            return
        }
        while let write = socket.machine.nextControlWrite() {
            switch write {
            case .close(let code, let reason):
                return close(socket, code, reason)
            case .pong(let payload):
                guard writeFrame(socket, .pong, payload) else { return }
            case .ping:
                guard writeFrame(socket, .ping, Self.pingPayload) else { return }
            }
        }
        while socket.channel.isFlushed {
            switch socket.connection.nextAction() {
            case .write(let frame)?:
                guard writeFrame(socket, .text, frame) else { return }
                socket.machine.wroteMessage(now: loopNow)
            case .close(let code, let reason)?:
                return close(socket, code, reason)
            case nil:
                if stopping, socket.connection.isSettled {
                    closeDraining(socket)
                    if case .close(let code, let reason)? = socket.machine.nextControlWrite() { close(socket, code, reason) }
                    return
                }
                if socket.machine.takeHeartbeat() {
                    guard writeFrame(socket, .text, ServerMessage.heartbeat.encoded(seq: 0)) else { return }
                    socket.machine.wroteMessage(now: loopNow)
                }
                return
            }
        }
    }

    /// Writes one frame (head and payload in one `send`); `false` when the socket failed
    /// (it is closed then).
    private func writeFrame(_ socket: WebSocketState, _ opcode: WebSocketFrameWriter.Opcode, _ payload: [UInt8]) -> Bool {
        frameScratch.removeAll(keepingCapacity: true)
        WebSocketFrameWriter.append(opcode, length: payload.count, to: &frameScratch)
        frameScratch.append(contentsOf: payload)
        defer { if frameScratch.capacity > Self.largestKeptFrameBytes { frameScratch = [] } }
        return send(socket, frameScratch, payloadBytes: payload.count)
    }

    private func send(_ socket: WebSocketState, _ bytes: [UInt8], payloadBytes: Int) -> Bool {
        let written = bytes.withUnsafeBytes { socket.channel.write($0) }
        guard written else {
            closeSocket(socket)
            return false
        }
        bytesOutThisPass += payloadBytes
        return true
    }

    /// The frame scratch buffer keeps its capacity up to this size between frames.
    static let largestKeptFrameBytes = 256 << 10

    /// What our pings carry (the page's pong echoes it).
    static let pingPayload = Array("dsb".utf8)

    // MARK: Closing

    /// Closes `socket` with `code`: the close frame goes out (before anything still
    /// queued), then the sending side is shut down and the socket lingers (input read and
    /// dropped) until the page closes its side or ``WebSocketConnectionMachine/lingerMs``
    /// passes: closing at once would reset the connection if the page sent anything
    /// meanwhile (an `ack`, a call), and a reset discards the close frame the page has not
    /// read yet (it would see 1006).
    func close(_ socket: WebSocketState, _ code: Int, _ reason: String) {
        guard !socket.isClosed, !socket.machine.isLingering else { return }
        _ = socket.machine.decideClose(code: code, reason: reason)
        guard writeFrame(socket, .close, WebSocketFrameWriter.closePayload(code: code, reason: reason)) else { return }
        socket.machine.closeFrameWritten(now: loopNow)
        if socket.channel.isFlushed { socket.channel.shutdownOutput() }
        armSocketTimer(socket)
        updateWebSocketPolling(socket)
    }

    /// Closes `socket` at the end of this loop pass (from anywhere: the close frame goes out
    /// first, ahead of what is queued).
    func closeSoon(_ socket: WebSocketState, _ code: Int, _ reason: String) {
        guard socket.machine.decideClose(code: code, reason: reason) else { return }
        flushBeforeWait(socket)
    }

    /// Drops the socket now, without a close handshake (a dead peer, the end of a linger, a
    /// failed write, the loop closing): the session learns its socket is gone.
    func closeSocket(_ socket: WebSocketState) {
        guard !socket.isClosed else { return }
        socket.isClosed = true
        socket.machine.closed()
        socket.channel.close()
        if sockets.removeValue(forKey: socket.id) != nil { socket.connection.socketClosed() }
        pageConnectionClosed()
        trimHeapAfterBursts()
    }

    // MARK: Deadlines

    /// Queues `socket`'s deadline if it is earlier than the one already queued. (A later
    /// one is picked up when the earlier entry comes due.)
    func armSocketTimer(_ socket: WebSocketState) {
        armConnectionDeadline(.socket(socket.id), at: socket.machine.deadline, armed: &socket.armedDeadline)
    }

    /// A deadline of socket `id` came (stale entries are ignored).
    func socketDeadlineDue(_ id: UInt64, deadline: UInt64, now: UInt64) {
        guard let socket = sockets[id], socket.armedDeadline == deadline else { return }
        socket.armedDeadline = nil
        switch socket.machine.deadlinePassed(now: now, awaitsHello: socket.connection.awaitsHello) {
        case .none:
            break
        case .write, .helloTimedOut:
            flushBeforeWait(socket)
        case .drop(let why):
            if why == .silent {
                logger.info(
                    "WebSocket silent for 2 × heartbeat: hanging up",
                    metadata: ["bridge.session": "\(socket.connection.session?.id ?? "-")"])
            }
            return closeSocket(socket)
        }
        armSocketTimer(socket)
    }
}

// SPDX-License-Identifier: MIT
import CLibWebSockets
import DSBridge
import Dispatch
import Foundation

/// lws callback of the `dsbridge.v1` protocol (service thread).
func webSocketCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
    guard let wsi, let loop = ServiceLoop.from(wsi) else { return 0 }
    return loop.webSocket(wsi, reason, user, input, len)
}

extension ServiceLoop {
    func webSocket(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ len: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            drainInbox()
            return 0
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            if stopping { return -1 }
            guard requestURI(wsi, token: WSI_TOKEN_GET_URI) == "/dsbridge" else { return -1 }
            guard origins.allows(header(wsi, WSI_TOKEN_ORIGIN)) else {
                logger.info("WebSocket refused: origin not allowed", metadata: ["bridge.peer": "\(peerAddress(wsi))"])
                _ = lws_return_http_status(wsi, 403, "origin not allowed")
                return -1
            }
            return 0
        case LWS_CALLBACK_ESTABLISHED:
            guard let user else { return -1 }
            let id = makeID()
            let origin = header(wsi, WSI_TOKEN_ORIGIN)
            let peer = clientAddress(wsi)
            let waker = InboxWaker(inbox: server.inbox, id: id)
            let connection = bridge.connect(peerAddress: peer, origin: origin, headers: requestHeaders(wsi), waker: waker)
            let liveness = SocketLiveness(
                openedAt: loopNow, heartbeatMs: bridge.configuration.heartbeatMs,
                helloTimeoutMs: bridge.configuration.helloTimeoutMs)
            let socket = WebSocketState(id: id, wsi: wsi, connection: connection, waker: waker, liveness: liveness)
            sockets[id] = socket
            // The socket itself, unretained, in lws' per-connection memory: each callback
            // finds it without a table look-up. `sockets` keeps it alive until CLOSED,
            // which clears this first.
            user.storeBytes(of: UInt(bitPattern: Unmanaged.passUnretained(socket).toOpaque()), as: UInt.self)
            armLiveness(socket)
            return 0
        case LWS_CALLBACK_RECEIVE:
            guard let socket = socket(user) else { return 0 }
            socket.liveness.received(at: loopNow)
            receive(socket, input, len)
            return 0
        case LWS_CALLBACK_RECEIVE_PONG:
            socket(user)?.liveness.received(at: loopNow)
            return 0
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let socket = socket(user) else { return 0 }
            return writeable(socket)
        case LWS_CALLBACK_CLOSED:
            guard let socket = socket(user), let user else { return 0 }
            user.storeBytes(of: 0, as: UInt.self)
            socket.isClosed = true
            if sockets.removeValue(forKey: socket.id) != nil { socket.connection.socketClosed() }
            trimHeapAfterBursts()
            return 0
        default:
            return 0
        }
    }

    /// The socket whose lws per-connection memory is `user` (`nil` before ESTABLISHED and
    /// after CLOSED).
    private func socket(_ user: UnsafeMutableRawPointer?) -> WebSocketState? {
        guard let user, let pointer = UnsafeRawPointer(bitPattern: user.load(as: UInt.self)) else { return nil }
        return Unmanaged<WebSocketState>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Reassembles and hands over a message.
    private func receive(_ socket: WebSocketState, _ input: UnsafeMutableRawPointer?, _ len: Int) {
        if socket.forcedClose != nil { return }
        let wsi = socket.wsi
        if lws_frame_is_binary(wsi) != 0 {
            closeSoon(socket, 1003, "binary frames are not accepted")
            return
        }
        if lws_is_first_fragment(wsi) != 0 { socket.message.removeAll(keepingCapacity: true) }
        if socket.message.count + len > bridge.configuration.maxMessageBytes {
            socket.message = []
            closeSoon(socket, 1009, "message too big")
            return
        }
        if let input, len > 0 {
            socket.message.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len))
            TransportMetrics.bytesIn.increment(by: len)
        }
        if lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0 {
            let message = socket.message
            socket.message = []
            socket.connection.receive(message)
            flushBeforeWait(socket)
        }
    }

    /// Once per loop pass, after its socket events (the prepare handler): what frames run
    /// on this thread produced goes out now, without a WRITEABLE round trip (on libuv each
    /// costs four `epoll_ctl` calls and a loop pass), and coalesced: every answer a socket
    /// got during the pass in one frame, one `send`. Only when lws holds no unsent bytes
    /// for the socket (order) and nothing else is due first; then a close those frames
    /// caused (`_dsb.closePage`) right behind (sent later, the page could send more in
    /// between, and a close over unread input resets the connection, losing the close
    /// frame). lws buffers what the kernel does not take and asks for WRITEABLE itself.
    func flushInlineAnswers() {
        guard !flushSoon.isEmpty else { return }
        let due = flushSoon
        flushSoon.removeAll(keepingCapacity: true)
        for socket in due {
            socket.flushQueued = false
            guard !socket.isClosed else { continue }
            writeAnswersNow(socket)
        }
    }

    /// Lists `socket` for ``flushInlineAnswers()`` at the end of this loop pass.
    func flushBeforeWait(_ socket: WebSocketState) {
        guard !socket.flushQueued else { return }
        socket.flushQueued = true
        flushSoon.append(socket)
    }

    private func writeAnswersNow(_ socket: WebSocketState) {
        guard socket.forcedClose == nil else { return }
        guard !socket.pingDue, !stopping, lws_partial_buffered(socket.wsi) == 0 else {
            // A ping, a drain or lws' own unsent bytes go first: the answers follow from
            // WRITEABLE.
            lws_callback_on_writable(socket.wsi)
            return
        }
        for _ in 0..<2 {
            switch socket.connection.nextAction() {
            case .write(let frame)?:
                guard write(socket.wsi, frame), lws_partial_buffered(socket.wsi) == 0 else {
                    // The kernel took part of it: lws sends the rest from WRITEABLE.
                    lws_callback_on_writable(socket.wsi)
                    return
                }
                socket.liveness.wrote(at: loopNow)
                socket.heartbeatDue = false
            case .close(let code, let reason)?:
                socket.forcedClose = (code, reason)
                if closeGracefully(socket, code, reason) != 0 {
                    // Outside a callback lws cannot be told -1: drop the connection now.
                    lws_set_timeout(socket.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC)
                }
                return
            case nil:
                return
            }
        }
        if socket.connection.hasPendingOutput { lws_callback_on_writable(socket.wsi) }
    }

    /// Closes from WRITEABLE (closing from RECEIVE is unreliable in lws 4.1 with
    /// permessage-deflate).
    private func closeSoon(_ socket: WebSocketState, _ code: Int, _ reason: String) {
        socket.forcedClose = (code, reason)
        lws_callback_on_writable(socket.wsi)
    }

    /// One write per WRITEABLE, in this order: a close the transport decided, a due ping
    /// (first, so a page flooded with messages still gets pinged), the next queued frame,
    /// then a due `hb`. Asks for WRITEABLE again only while something is left (each ask
    /// costs libuv two `epoll_ctl` calls and the loop a pass; what is queued later wakes
    /// the loop through the connection's waker).
    private func writeable(_ socket: WebSocketState) -> Int32 {
        let wsi = socket.wsi
        if socket.lingering { return 0 }
        if let close = socket.forcedClose {
            return closeGracefully(socket, close.code, close.reason)
        }
        if socket.pingDue {
            socket.pingDue = false
            // With a payload: lws 4.1 reports no RECEIVE_PONG for an empty pong.
            guard write(wsi, Self.pingPayload, as: LWS_WRITE_PING) else { return -1 }
            lws_callback_on_writable(wsi)
            return 0
        }
        switch socket.connection.nextAction() {
        case .write(let frame)?:
            guard write(wsi, frame) else { return -1 }
            socket.liveness.wrote(at: loopNow)
            socket.heartbeatDue = false
            if socket.pingDue || stopping || socket.connection.hasPendingOutput { lws_callback_on_writable(wsi) }
            return 0
        case .close(let code, let reason)?:
            socket.forcedClose = (code, reason)
            return closeGracefully(socket, code, reason)
        case nil:
            if stopping, socket.connection.isSettled {
                closeDraining(socket)
                return 0
            }
            if socket.heartbeatDue {
                socket.heartbeatDue = false
                guard write(wsi, ServerMessage.heartbeat.encoded(seq: 0)) else { return -1 }
                socket.liveness.wrote(at: loopNow)
            }
            return 0
        }
    }

    /// How long a closed socket waits for the page to close its side.
    static let lingerMs: UInt64 = 2_000

    /// Sends the close frame, then shuts down the sending side and lingers (input read and
    /// dropped) until the page closes its side: closing at once would reset the connection
    /// if the page sent anything meanwhile (an `ack`, a call), and a reset discards the
    /// close frame the page has not read yet (it would see 1006). Returns what the lws
    /// callback returns: 0 while lingering, -1 when the socket is to be dropped now.
    func closeGracefully(_ socket: WebSocketState, _ code: Int, _ reason: String) -> Int32 {
        let wsi = socket.wsi
        closeWith(wsi, code, reason)
        let fd = lws_get_socket_fd(wsi)
        guard fd >= 0, lws_partial_buffered(wsi) == 0, shutdown(fd, Int32(SHUT_WR)) == 0 else { return -1 }
        socket.lingering = true
        deadlines.schedule(.lingerEnd(socket.id), at: loopNow + Self.lingerMs)
        return 0
    }

    /// lws' LWS_WRITE_CLOSE (4), which its header keeps out of the public enum.
    static let writeClose = lws_write_protocol(rawValue: 4)

    /// What our pings carry (the page's pong echoes it).
    static let pingPayload = Array("dsb".utf8)

    private func write(_ wsi: OpaquePointer, _ frame: [UInt8], as kind: lws_write_protocol = LWS_WRITE_TEXT) -> Bool {
        let needed = pre + frame.count
        if writeBuffer.count < needed { writeBuffer = [UInt8](repeating: 0, count: max(needed, 64 << 10)) }
        return writeBuffer.withUnsafeMutableBufferPointer { buf -> Bool in
            guard let base = buf.baseAddress else { return false }
            frame.withUnsafeBufferPointer { src in
                if let s = src.baseAddress { (base + pre).update(from: s, count: frame.count) }
            }
            let n = lws_write(wsi, base + pre, frame.count, kind)
            TransportMetrics.bytesOut.increment(by: frame.count)
            return n >= frame.count
        }
    }

    /// Writes the close frame (status `code`, `reason`) from WRITEABLE; the caller then
    /// returns -1 and lws drops the connection. (Handing lws the reason with
    /// `lws_close_reason` and returning -1 sends nothing in lws 4.1 on libuv: its deferred
    /// close-frame write never runs.)
    private func closeWith(_ wsi: OpaquePointer, _ code: Int, _ reason: String) {
        let frame = [UInt8(truncatingIfNeeded: code >> 8), UInt8(truncatingIfNeeded: code)] + Array(CloseReason.clipped(reason).utf8)
        _ = write(wsi, frame, as: Self.writeClose)
    }

    // MARK: request details (valid while lws holds the request headers)

    func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buf = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buf, Int32(buf.count), token) >= 0 else { return nil }
        return Self.string(buf)
    }

    /// The headers an authenticator may want, lower-case names.
    func requestHeaders(_ wsi: OpaquePointer) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, token) in [
            ("cookie", WSI_TOKEN_HTTP_COOKIE), ("authorization", WSI_TOKEN_HTTP_AUTHORIZATION),
            ("user-agent", WSI_TOKEN_HTTP_USER_AGENT), ("origin", WSI_TOKEN_ORIGIN),
            ("x-forwarded-for", WSI_TOKEN_X_FORWARDED_FOR), ("host", WSI_TOKEN_HOST),
        ] {
            if let v = header(wsi, token) { headers[name] = v }
        }
        return headers
    }

    func customHeader(_ wsi: OpaquePointer, _ name: String) -> String? {
        let key = name.lowercased() + ":"
        let length = Int(lws_hdr_custom_length(wsi, key, Int32(key.utf8.count)))
        guard length >= 0 else { return nil }
        var buf = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_custom_copy(wsi, &buf, Int32(buf.count), key, Int32(key.utf8.count)) >= 0 else { return nil }
        return Self.string(buf)
    }

    func requestURI(_ wsi: OpaquePointer, token: lws_token_indexes) -> String? {
        header(wsi, token)
    }

    static func string(_ buf: [CChar]) -> String {
        let bytes = buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The address the request counts under: the TCP peer, or for a trusted proxy the
    /// client it names in `X-Forwarded-For`.
    func clientAddress(_ wsi: OpaquePointer) -> String {
        clientAddresses.resolve(peer: peerAddress(wsi), forwardedFor: header(wsi, WSI_TOKEN_X_FORWARDED_FOR))
    }

    func peerAddress(_ wsi: OpaquePointer) -> String {
        // A WebSocket under TLS runs on a tunnel's Unix socket: its client is recorded.
        if terminatesTLS, let peer = tunnelPeers[lws_get_socket_fd(wsi)] { return peer }
        var buf = [CChar](repeating: 0, count: 128)
        guard lws_get_peer_simple(wsi, &buf, buf.count) != nil else { return "unknown" }
        return Self.string(buf)
    }
}

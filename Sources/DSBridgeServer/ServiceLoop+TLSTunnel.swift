// SPDX-License-Identifier: MIT
import CLibWebSockets

#if canImport(Glibc)
import Glibc
#endif

/// lws callback of the page vhost's first protocol (service thread). lws serves no HTTP
/// there: every page connection is dsbridged's own (ServiceLoop+PlainHTTP), under TLS
/// through a tunnel; lws reports here only each TLS connection's end and its wake-ups.
func mainHTTPCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
    guard let wsi, let loop = ServiceLoop.from(wsi) else { return 0 }
    switch reason {
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        loop.drainInbox()
        return 0
    case LWS_CALLBACK_WSI_DESTROY:
        // Every connection of the vhost ends here (on its protocols[0]).
        loop.pageConnectionClosed()
        return 0
    default:
        return lws_callback_http_dummy(wsi, reason, user, input, len)
    }
}

/// lws callback of the raw TLS connections of the page port (service thread).
func tlsTunnelCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
    guard let wsi, let loop = ServiceLoop.from(wsi) else { return 0 }
    return loop.tlsTunnel(wsi, reason, user, input, len)
}

/// TLS on the page port (`--tls-cert`): libwebsockets does the TLS, as a raw socket, and
/// ``TLSTunnel`` carries the plaintext through a socket pair to a plain connection served
/// like any other (ServiceLoop+PlainHTTP), so every HTTPS request is judged as sent.
extension ServiceLoop {
    /// The name of the raw-TLS protocol on the page vhost.
    static let tlsTunnelProtocol = "dsbridge-tls"

    /// Takes an accepted socket under TLS: lws negotiates TLS on it as a raw socket.
    func adoptTLS(_ fd: Int32) {
        guard let vhost = mainVhost else {
            Glibc.close(fd)
            return
        }
        var descriptor = lws_sock_file_fd_type()
        descriptor.sockfd = fd
        let type = lws_adoption_type(LWS_ADOPT_SOCKET.rawValue | LWS_ADOPT_ALLOW_SSL.rawValue)
        if lws_adopt_descriptor_vhost(vhost, type, descriptor, Self.tlsTunnelProtocol, nil) == nil {
            // (lws closed the socket itself.)
            logger.debug("libwebsockets refused an accepted TLS connection")
        }
    }

    func tlsTunnel(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ len: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_RAW_ADOPT:
            guard let user else { return -1 }
            return openTunnel(wsi, user: user)
        case LWS_CALLBACK_RAW_RX:
            guard let tunnel = tunnel(user), let input, len > 0 else { return 0 }
            if !tunnel.established {
                // lws gives a new TLS connection timeout_secs to "establish"; a raw one
                // never does so in its eyes: past the handshake, time is the inner side's.
                tunnel.established = true
                lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0)
            }
            if tunnel.lingering || !tunnel.fromClient(UnsafeRawBufferPointer(start: input, count: len)) {
                // The inner side is gone: what the client still sends is dropped while its
                // answer goes out and the connection lingers.
                tunnel.discardToInner()
                tunnel.innerEnded = true
                if tunnel.pendingToClient == 0 { return linger(tunnel) }
                return 0
            }
            if tunnel.pendingToInner >= TLSTunnel.highWater, !tunnel.clientReadsPaused {
                tunnel.clientReadsPaused = true
                lws_rx_flow_control(wsi, 0)
            }
            tunnel.updatePolling()
            return 0
        case LWS_CALLBACK_RAW_WRITEABLE:
            guard let tunnel = tunnel(user) else { return 0 }
            return writeToClient(tunnel)
        case LWS_CALLBACK_RAW_CLOSE:
            if let tunnel = tunnel(user) { closeTunnel(tunnel) }
            user?.storeBytes(of: 0, as: UInt64.self)
            return 0
        default:
            return 0
        }
    }

    private func tunnel(_ user: UnsafeMutableRawPointer?) -> TLSTunnel? {
        guard let user else { return nil }
        return tunnels[user.load(as: UInt64.self)]
    }

    /// A TLS connection was adopted: its socket pair, the outer end watched here, the
    /// inner end served as a plain connection.
    private func openTunnel(_ wsi: OpaquePointer, user: UnsafeMutableRawPointer) -> Int32 {
        guard let events = eventLoop else { return -1 }
        var pair: [Int32] = [-1, -1]
        let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, kind, 0, &pair) == 0 else {
            logger.warning("TLS connection dropped: no socket pair for it (errno \(errno))")
            return -1
        }
        let peer = peerAddress(wsi)
        let id = makeID()
        guard
            let tunnel = TLSTunnel(
                id: id, wsi: wsi, fd: pair[0], loop: events.loop,
                onEvent: { [unowned self] t, readable, writable in tunnelEvent(t, readable: readable, writable: writable) })
        else {
            Glibc.close(pair[1])
            return -1
        }
        user.storeBytes(of: id, as: UInt64.self)
        tunnels[id] = tunnel
        tunnel.updatePolling()
        servePlainHTTP(pair[1], peer: peer, listener: .page)
        return 0
    }

    /// Writes (part of) what the inner side sent through TLS; closes once the inner side
    /// ended and everything went out.
    private func writeToClient(_ tunnel: TLSTunnel) -> Int32 {
        let chunk = min(tunnel.pendingToClient, 64 << 10)
        if chunk > 0 {
            if writeBuffer.count < pre + chunk { writeBuffer = [UInt8](repeating: 0, count: max(pre + chunk, 64 << 10)) }
            let pre = self.pre
            let written = writeBuffer.withUnsafeMutableBytes { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return -1 }
                let n = tunnel.takeForClient(into: base + pre, count: chunk)
                return lws_write(tunnel.wsi, base.assumingMemoryBound(to: UInt8.self) + pre, n, LWS_WRITE_HTTP) < Int32(n) ? -1 : 0
            }
            guard written == 0 else { return -1 }
        }
        if tunnel.pendingToClient > 0 {
            lws_callback_on_writable(tunnel.wsi)
        } else if tunnel.innerEnded {
            return linger(tunnel)
        }
        tunnel.updatePolling()
        return 0
    }

    /// Everything the inner side wrote went out and it ended: the client's connection stays
    /// open, its input dropped, until it closes (it read the answer) or for
    /// ``Lingering/maxMilliseconds`` at most, as a plain connection lingers.
    private func linger(_ tunnel: TLSTunnel) -> Int32 {
        if !tunnel.lingering {
            tunnel.lingering = true
            // Our end of the pair closes: the inner side's own lingering ends with it.
            tunnel.close()
            // The client sees the end of the stream now (as after a plain connection's
            // shutdown), while what it still sends is read and dropped.
            shutdown(lws_get_socket_fd(tunnel.wsi), Int32(SHUT_WR))
            let seconds = Int32((Lingering.maxMilliseconds + 999) / 1000)
            lws_set_timeout(tunnel.wsi, PENDING_TIMEOUT_USER_OK, seconds)
        }
        return 0
    }

    /// The outer end of a pair is readable (the inner side wrote or closed) or writable
    /// (the inner side took what waited).
    private func tunnelEvent(_ tunnel: TLSTunnel, readable: Bool, writable: Bool) {
        if writable {
            if !tunnel.flushToInner() {
                // The inner side closed its end while the client still sent: what it did
                // not read is dropped, its own output still goes out.
                tunnel.innerEnded = true
            }
            if tunnel.clientReadsPaused, tunnel.pendingToInner < TLSTunnel.highWater / 2 {
                tunnel.clientReadsPaused = false
                lws_rx_flow_control(tunnel.wsi, 1)
                // lws on libuv hands over what it buffered meanwhile only in its idle pass,
                // which a wake of its event pipe schedules.
                if let context { lws_cancel_service(context) }
            }
        }
        if readable && !tunnel.innerEnded {
            let scratch = plainScratch
            reading: for _ in 0..<4 {
                switch tunnel.readFromInner(scratch: scratch) {
                case .bytes:
                    if tunnel.pendingToClient >= TLSTunnel.highWater { break reading }
                case .nothing:
                    break reading
                case .ended:
                    tunnel.innerEnded = true
                    break reading
                }
            }
            if tunnel.pendingToClient > 0 || tunnel.innerEnded { lws_callback_on_writable(tunnel.wsi) }
        }
        tunnel.updatePolling()
    }

    /// The client's connection closed: our end of the pair closes, so the inner side reads
    /// the end of its input.
    private func closeTunnel(_ tunnel: TLSTunnel) {
        tunnel.close()
        tunnels.removeValue(forKey: tunnel.id)
    }

    /// The TLS client's address as lws has it (`unknown` if none).
    private func peerAddress(_ wsi: OpaquePointer) -> String {
        var buf = [CChar](repeating: 0, count: 128)
        guard lws_get_peer_simple(wsi, &buf, buf.count) != nil else { return "unknown" }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Closes every tunnel (the loop is closing).
    func closeTunnels() {
        for tunnel in tunnels.values { tunnel.close() }
        tunnels.removeAll()
    }
}

// SPDX-License-Identifier: MIT
import CLibWebSockets

#if canImport(Glibc)
import Glibc
#endif

/// lws callback of the page vhost (service thread): its one protocol, the raw TLS
/// connections of the page port, and the vhost's wake-ups.
func pageTLSCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
    guard let wsi, let loop = ServiceLoop.from(wsi) else { return 0 }
    return loop.tlsEvent(wsi, reason, user, input, len)
}

/// TLS on the page port (`--tls-cert`): each accepted socket is adopted by libwebsockets as
/// a raw connection with TLS, on its one descriptor; lws does the handshake and the records,
/// and the plaintext feeds a ``PlainHTTPConnection`` in-process (``TLSLink``), served like
/// any other (ServiceLoop+PlainHTTP, ServiceLoop+WebSocket), so every HTTPS request and WSS
/// frame is judged exactly as a plain one.
///
/// The connection's lws user data holds the ``PlainHTTPConnection`` (unretained: the loop's
/// tables keep it; its ``PlainHTTPConnection/close()``, which runs before it goes, clears
/// the slot, as does lws' report of the end), so lws never reports to a connection gone.
extension ServiceLoop {
    /// The name of the raw-TLS protocol on the page vhost.
    static let tlsProtocol = "dsbridge-tls"

    /// Takes an accepted socket under TLS: lws negotiates TLS on it as a raw socket.
    func adoptTLS(_ fd: Int32) {
        guard let vhost = mainVhost else {
            Glibc.close(fd)
            return
        }
        var descriptor = lws_sock_file_fd_type()
        descriptor.sockfd = fd
        let type = lws_adoption_type(LWS_ADOPT_SOCKET.rawValue | LWS_ADOPT_ALLOW_SSL.rawValue)
        if lws_adopt_descriptor_vhost(vhost, type, descriptor, Self.tlsProtocol, nil) == nil {
            // (lws closed the socket itself.)
            logger.debug("libwebsockets refused an accepted TLS connection")
        }
    }

    func tlsEvent(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ len: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_RAW_ADOPT:
            guard let user else { return -1 }
            return openTLSConnection(wsi, slot: user)
        case LWS_CALLBACK_RAW_RX:
            guard let c = Self.connection(in: user), let link = c.tls, let input, len > 0 else { return 0 }
            link.received(UnsafeRawBufferPointer(start: input, count: len))
            readTLSInput(c)
            return 0
        case LWS_CALLBACK_RAW_WRITEABLE:
            guard let c = Self.connection(in: user), let link = c.tls else { return 0 }
            link.drained()
            c.socketEvent(readable: false, writable: true)
            return 0
        case LWS_CALLBACK_RAW_CLOSE:
            guard let c = Self.connection(in: user), let link = c.tls else { return 0 }
            user?.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
            // What the client sent before it went is still read (a whole request is
            // served as far as it can be), then its end; lws frees the socket after this.
            link.peerEnded()
            readTLSInput(c)
            if !c.closed { closeConnection(c) }
            return 0
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            drainInbox()
            return 0
        case LWS_CALLBACK_WSI_DESTROY:
            // The descriptor is free now (the accept gate may resume).
            pageConnectionClosed()
            return 0
        default:
            return 0
        }
    }

    /// The connection whose pointer `slot` (a connection's lws user data) holds.
    private static func connection(in slot: UnsafeMutableRawPointer?) -> PlainHTTPConnection? {
        guard let pointer = slot?.load(as: UnsafeMutableRawPointer?.self) else { return nil }
        return Unmanaged<PlainHTTPConnection>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// A TLS connection was adopted: it becomes a page connection fed by lws.
    private func openTLSConnection(_ wsi: OpaquePointer, slot: UnsafeMutableRawPointer) -> Int32 {
        let c = PlainHTTPConnection(
            id: makeID(), tls: TLSLink(wsi: wsi), peer: peerAddress(wsi), http: newHTTPMachine(), owner: self)
        slot.storeBytes(of: Unmanaged.passUnretained(c).toOpaque(), as: UnsafeMutableRawPointer?.self)
        servePlainHTTP(c)
        return 0
    }

    /// Lets `c` read the plaintext waiting in its link while it wants input and makes
    /// progress (lws pushes what it decrypted; the connection reads a window at a time).
    func readTLSInput(_ c: PlainHTTPConnection) {
        guard let link = c.tls else { return }
        link.readQueued = false
        while !c.closed, link.wantsInput, link.hasInput || link.ended {
            let waiting = link.waitingBytes
            c.socketEvent(readable: true, writable: false)
            if link.waitingBytes == waiting, !c.closed {
                // Nothing taken (the connection holds its input back): it asks again once it
                // wants more (PlainHTTPConnection.updatePolling).
                return
            }
        }
    }

    /// `c` wants input again while plaintext waits in its link: read at the end of this loop
    /// pass (lws will not report those bytes again).
    func tlsInputWaiting(_ c: PlainHTTPConnection) {
        guard let link = c.tls, !link.readQueued else { return }
        link.readQueued = true
        tlsReadsDue.append(c)
    }

    /// Reads what waits for the TLS connections listed by ``tlsInputWaiting(_:)``.
    func readWaitingTLSInput() {
        while !tlsReadsDue.isEmpty {
            let due = tlsReadsDue
            tlsReadsDue.removeAll(keepingCapacity: true)
            for c in due where !c.closed { readTLSInput(c) }
        }
    }

    /// The TLS client's address as lws has it (`unknown` if none).
    private func peerAddress(_ wsi: OpaquePointer) -> String {
        var buf = [CChar](repeating: 0, count: 128)
        guard lws_get_peer_simple(wsi, &buf, buf.count) != nil else { return "unknown" }
        let address = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // An IPv4 client of a dual-stack socket counts as IPv4 (PROTOCOL.md 2.5).
        if address.hasPrefix("::ffff:"), address.contains(".") { return String(address.dropFirst(7)) }
        return address
    }
}

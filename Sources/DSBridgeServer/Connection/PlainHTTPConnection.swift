// SPDX-License-Identifier: MIT
import CLibWebSockets

#if canImport(Glibc)
import Glibc
#endif

/// One plain-HTTP connection of the page port or the admin listener, served by dsbridged
/// itself (service thread only): its socket, its libuv poll handle, where it is in the
/// request cycle and what is left to write. ``ServiceLoop`` drives it
/// (ServiceLoop+PlainHTTP); after a WebSocket upgrade (page port only) it carries the
/// WebSocket (``WebSocketState/channel``, ServiceLoop+WebSocket).
///
/// Why not libwebsockets for these: lws 4.1 normalises the request path before anyone sees
/// it (PROTOCOL.md 1.2 judges the path as sent, on every request of a kept-alive
/// connection), it cannot be made to see repeated or malformed `Content-Length` headers
/// (PROTOCOL.md 1.3), and on libuv it re-arms the socket's events about six times per
/// keep-alive request (each `epoll_ctl`); here a request costs a read and a write.
final class PlainHTTPConnection {
    /// Which listener a connection came from: it decides the routes (PROTOCOL.md 1 or 6).
    enum Listener: Equatable {
        /// The page port (plain, or TLS through libwebsockets).
        case page
        /// The admin listener: no WebSocket, no static files, its own body bound.
        case admin
    }

    let id: UInt64
    let fd: Int32
    // What every socket event reads comes first, so that it shares the object's first
    // memory lines (stored properties are laid out in declaration order): with thousands
    // of connections each active now and then, every other line touched is a cache miss.
    private(set) var closed = false
    /// Its socket's poll handle, inline (reports to ``socketEvent(readable:writable:)``);
    /// `nil` under TLS, where libwebsockets watches the socket (``tls``).
    private var poll: PollHandle?
    /// Under `--tls-cert`: the libwebsockets connection that carries it (TLS in-process,
    /// on this one descriptor; ServiceLoop+TLS). `nil` for a plain socket.
    let tls: TLSLink?
    /// Drives this connection (unowned(unsafe): the loop outlives every connection).
    private unowned(unsafe) let owner: ServiceLoop
    /// The WebSocket this connection carries since its upgrade (unowned(unsafe): the socket
    /// closes this connection, and with it the events, before it goes).
    unowned(unsafe) var webSocket: WebSocketState?
    /// Bytes handed to ``write(_:)`` that the kernel has not taken yet.
    private var unsent: [UInt8] = []
    private var unsentOffset = 0
    /// The client's address (IPv4-mapped IPv6 as IPv4).
    let peer: String
    /// The listener it came from.
    let listener: Listener
    /// Its HTTP/1.1 request cycle (ServiceLoop+PlainHTTP drives it).
    var http: HTTPConnectionMachine
    /// The request being served (its exchange), until the next one or the close.
    var exchange: HTTPExchange?
    /// The deadline entry queued for it, if any (older entries are stale).
    var armedDeadline: UInt64?
    /// ServiceLoop+PlainHTTP's loop over the machine's actions runs for it now.
    var driving = false

    /// Takes `fd` (an accepted socket of `listener`); `nil` when libuv cannot watch it (the
    /// socket is closed then). `owner` gets the socket's events (ServiceLoop+PlainHTTP, then
    /// ServiceLoop+WebSocket after an upgrade).
    init?(
        id: UInt64, fd: Int32, listener: Listener = .page, loop: UnsafeMutablePointer<uv_loop_t>,
        http: HTTPConnectionMachine, owner: ServiceLoop
    ) {
        guard let poll = PollHandle(loop: loop, fd: fd) else {
            Glibc.close(fd)
            return nil
        }
        self.id = id
        self.fd = fd
        self.poll = poll
        self.tls = nil
        self.http = http
        self.peer = Self.peerAddress(fd)
        self.listener = listener
        self.owner = owner
        poll.attach(self)
    }

    /// Takes a TLS connection of the page port that libwebsockets adopted (`link`); its
    /// events come from lws' callbacks (ServiceLoop+TLS).
    init(id: UInt64, tls link: TLSLink, peer: String, http: HTTPConnectionMachine, owner: ServiceLoop) {
        self.id = id
        self.fd = link.socket
        self.poll = nil
        self.tls = link
        self.http = http
        self.peer = peer
        self.listener = .page
        self.owner = owner
    }

    deinit {
        // (Closed before it goes, normally: this only keeps libuv from reporting to it.)
        poll?.close()
    }

    // MARK: Polling

    func socketEvent(readable: Bool, writable: Bool) {
        if let webSocket {
            owner.webSocketEvent(webSocket, readable: readable, writable: writable)
        } else {
            owner.plainEvent(self, readable: readable, writable: writable)
        }
    }

    /// Polls for input when `readable` (what its machine wants), and for output while bytes
    /// are unsent.
    func updatePolling(readable: Bool) {
        guard !closed else { return }
        if let tls {
            // lws sends what it kept on its own, and reports when it is out.
            tls.want(input: readable)
            if readable, tls.hasInput { owner.tlsInputWaiting(self) }
            return
        }
        poll?.poll(readable: readable, writable: unsentOffset < unsent.count) { handle, status, events in
            guard let event = PollHandle.event(handle, status, events) else { return }
            Unmanaged<PlainHTTPConnection>.fromOpaque(event.owner).takeUnretainedValue()
                .socketEvent(readable: event.readable, writable: event.writable)
        }
    }

    // MARK: Input

    /// What a read returned.
    enum ReadResult {
        case bytes(Int)
        /// Nothing to read now.
        case wouldBlock
        /// The peer closed or the socket failed.
        case ended
    }

    /// Copies up to `buffer.count` waiting bytes without consuming them (`MSG_PEEK`).
    func peek(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        read(into: buffer, flags: Int32(MSG_PEEK))
    }

    /// Reads (consumes) up to `buffer.count` bytes.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        read(into: buffer, flags: 0)
    }

    private func read(into buffer: UnsafeMutableRawBufferPointer, flags: Int32) -> ReadResult {
        if let tls { return tls.read(into: buffer, peek: flags != 0) }
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, flags)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .ended }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .ended
        }
    }

    // MARK: Output

    /// Sends `bytes` after whatever is still unsent; what the kernel does not take now is
    /// kept and sent when the socket is writable. `false` when the socket failed.
    func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Sends `bytes` after whatever is still unsent, without copying them unless the kernel
    /// does not take them all now (the rest is kept and sent when the socket is writable).
    /// `false` when the socket failed.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
        if let tls { return tls.write(bytes) }
        if unsentOffset < unsent.count {
            unsent.append(contentsOf: bytes)
            return true
        }
        var sent = 0
        while sent < bytes.count {
            let n = send(fd, base + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            if n > 0 {
                sent += n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            return false
        }
        if sent < bytes.count {
            unsent = Array(UnsafeRawBufferPointer(rebasing: bytes[sent...]))
            unsentOffset = 0
        }
        return true
    }

    /// Sends what is unsent; `false` when the socket failed.
    func flush() -> Bool {
        while unsentOffset < unsent.count {
            let n = unsent.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return send(fd, base + unsentOffset, buffer.count - unsentOffset, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                unsentOffset += n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return true }
            return false
        }
        unsent = []
        unsentOffset = 0
        return true
    }

    /// Everything handed to ``write(_:)`` has gone to the kernel.
    var isFlushed: Bool { unsentOffset >= unsent.count && !(tls?.outputBuffered ?? false) }

    /// No more output: the peer reads what was sent, then end of stream.
    func shutdownOutput() {
        // (Under TLS without a close_notify: the client sees the end of the stream, as
        // after a plain connection's shutdown.)
        shutdown(fd, Int32(SHUT_WR))
    }

    // MARK: Ending

    /// Stops watching the socket, frees the poll handle and closes the socket.
    func close() {
        guard !closed else { return }
        closed = true
        if let tls {
            // lws owns the descriptor: it closes it, and reports the end (ServiceLoop+TLS).
            tls.close()
            return
        }
        poll?.close()
        Glibc.close(fd)
    }

    /// The peer's address as text (`unknown` if the socket has none).
    private static func peerAddress(_ fd: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard named == 0 else { return "unknown" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            var address = withUnsafeBytes(of: storage) { $0.load(fromByteOffset: 4, as: in_addr.self) }
            guard inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil else { return "unknown" }
        case AF_INET6:
            var address = withUnsafeBytes(of: storage) { $0.load(fromByteOffset: 8, as: in6_addr.self) }
            guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return "unknown" }
        default:
            return "unknown"
        }
        let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // An IPv4 client of a dual-stack socket counts as IPv4 (PROTOCOL.md 2.5).
        if address.hasPrefix("::ffff:"), address.contains(".") { return String(address.dropFirst(7)) }
        return address
    }
}

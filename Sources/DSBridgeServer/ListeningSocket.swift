// SPDX-License-Identifier: MIT
import CLibWebSockets
import Glibc

/// Why a listening socket could not be opened.
enum ListeningSocketError: Error, Equatable {
    /// The address did not resolve to anything this machine can bind.
    case badAddress
    /// `socket`, `bind` or `listen` failed with this errno.
    case system(Int32)
}

/// A listening socket of dsbridged's own: the page port's (accepting pauses when
/// descriptors run short, where lws 4.1.6 retries a failing `accept` in a busy loop) and
/// the admin listener's. Accepted sockets are served by ServiceLoop+PlainHTTP (on the page
/// port under TLS, lws does the TLS first).
/// Non-blocking, watched by a libuv poll handle on the service thread's loop.
///
/// Service thread only.
final class ListeningSocket {
    let fd: Int32
    /// The port bound (useful with port 0).
    let port: Int
    private let poll: UnsafeMutablePointer<uv_poll_t>
    private var watching = false
    private var closed = false
    /// Runs when connections wait to be accepted.
    var onReadable: () -> Void = {}

    /// Binds `host`:`port` (IPv4 or IPv6 literal, or a name) and listens.
    init(host: String, port: Int, loop: UnsafeMutablePointer<uv_loop_t>) throws(ListeningSocketError) {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { throw .badAddress }
        defer { freeaddrinfo(list) }
        var lastError: Int32 = EADDRNOTAVAIL
        var bound: Int32 = -1
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let s = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard s >= 0 else { lastError = errno; continue }
            var one: Int32 = 1
            setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if info.pointee.ai_family == AF_INET6 {
                var zero: Int32 = 0
                setsockopt(s, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(MemoryLayout<Int32>.size))
            }
            if bind(s, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(s, SOMAXCONN) == 0 {
                bound = s
                break
            }
            lastError = errno
            Glibc.close(s)
        }
        guard bound >= 0 else { throw .system(lastError) }
        fd = bound
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(bound, $0, &length) }
        }
        if named == 0 {
            self.port = Int(
                UInt16(
                    bigEndian: withUnsafeBytes(of: storage) { raw in
                        raw.load(fromByteOffset: 2, as: UInt16.self)  // sin_port and sin6_port share this offset
                    }))
        } else {
            self.port = port
        }
        poll = .allocate(capacity: 1)
        uv_poll_init_socket(loop, poll, bound)
        poll.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    /// Starts (or restarts) watching for connections.
    func resume() {
        guard !watching, !closed else { return }
        watching = true
        uv_poll_start(poll, Int32(UV_READABLE.rawValue)) { handle, _, _ in
            guard let data = handle?.pointee.data else { return }
            Unmanaged<ListeningSocket>.fromOpaque(data).takeUnretainedValue().onReadable()
        }
    }

    /// Stops watching: connections wait in the listen backlog.
    func pause() {
        guard watching, !closed else { return }
        watching = false
        uv_poll_stop(poll)
    }

    /// Takes the next waiting connection: its descriptor, or the errno of the failure.
    func acceptOne() -> Result<Int32, AcceptFailure> {
        let s = accept(fd, nil, nil)
        if s >= 0 {
            // (Blocking as accepted: PlainHTTPConnection's uv_poll_init and lws' adoption each
            // make it non-blocking before reading it.)
            // What lws' own listener would set (lws_plat_set_socket_options is not exported):
            // Nagle off, or a frame written right after another waits for the peer's
            // delayed ACK (up to 40 ms) and closes can lose their close frame.
            var one: Int32 = 1
            setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            _ = fcntl(s, F_SETFD, FD_CLOEXEC)
            return .success(s)
        }
        return .failure(AcceptFailure(errno: errno))
    }

    /// The lowest descriptor number free right now (what the next `accept` would get), or
    /// `Int32.max` when none is (`dup` fails with EMFILE).
    func lowestFreeDescriptor() -> Int32 {
        let probe = dup(fd)
        guard probe >= 0 else { return Int32.max }
        Glibc.close(probe)
        return probe
    }

    /// Closes the socket; the poll handle is freed once libuv has closed it.
    func close() {
        guard !closed else { return }
        closed = true
        watching = false
        uv_poll_stop(poll)
        uv_close(UnsafeMutableRawPointer(poll).assumingMemoryBound(to: uv_handle_t.self)) { handle in
            handle.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: uv_poll_t.self).deallocate() }
        }
        Glibc.close(fd)
    }

    /// An `accept` failure.
    struct AcceptFailure: Error {
        let errno: Int32
    }
}

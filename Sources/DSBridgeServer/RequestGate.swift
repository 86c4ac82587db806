// SPDX-License-Identifier: MIT
import CLibWebSockets
#if canImport(Glibc)
import Glibc
#endif

/// The page listener's socket without TLS, owned by dsbridged (service thread only):
/// accepted connections go through ``RequestLineCheck`` before lws sees them. (With TLS,
/// lws listens itself.)
final class RequestGate {
    let fd: Int32
    let port: Int
    /// Where accepted sockets wait for their first request line.
    let check: RequestLineCheck
    private let listenPoll: UnsafeMutablePointer<uv_poll_t>
    private var closed = false

    /// Listens on `host`:`port` (`port` 0: any free port).
    init?(loop: UnsafeMutablePointer<uv_loop_t>, host: String, port: Int) {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, var first = list else { return nil }
        defer { freeaddrinfo(list) }
        // An IPv4 address first, as lws chose (`localhost` is 127.0.0.1, not only ::1).
        var candidate: UnsafeMutablePointer<addrinfo>? = list
        while let c = candidate {
            if c.pointee.ai_family == AF_INET {
                first = c
                break
            }
            candidate = c.pointee.ai_next
        }
        let fd = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0, listen(fd, SOMAXCONN) == 0 else {
            Glibc.close(fd)
            return nil
        }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            Glibc.close(fd)
            return nil
        }
        let family = Int32(address.ss_family)
        let bound: UInt16 = withUnsafePointer(to: &address) { p in
            if family == AF_INET6 {
                return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        self.fd = fd
        self.port = Int(bound)
        check = RequestLineCheck(loop: loop)
        listenPoll = .allocate(capacity: 1)
        uv_poll_init(loop, listenPoll, fd)
        listenPoll.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        uv_poll_start(listenPoll, Int32(UV_READABLE.rawValue)) { handle, _, _ in
            guard let data = handle?.pointee.data else { return }
            Unmanaged<RequestGate>.fromOpaque(data).takeUnretainedValue().acceptAll()
        }
    }

    /// Stops listening and drops connections still waiting (before the loop closes).
    func close() {
        guard !closed else { return }
        closed = true
        uv_poll_stop(listenPoll)
        uv_close(UnsafeMutableRawPointer(listenPoll).assumingMemoryBound(to: uv_handle_t.self)) { handle in
            handle.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: uv_poll_t.self).deallocate() }
        }
        Glibc.close(fd)
        check.close()
    }

    private func acceptAll() {
        while !closed {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }  // EAGAIN, or out of descriptors: the backlog waits
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            check.watch(client)
        }
    }
}

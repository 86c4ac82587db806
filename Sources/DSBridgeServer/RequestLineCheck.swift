// SPDX-License-Identifier: MIT
import CLibWebSockets
#if canImport(Glibc)
import Glibc
#endif

/// The first request line of each accepted page connection, judged as sent (service thread
/// only). libwebsockets normalises a request's path before the daemon sees it (it decodes
/// it, collapses `.`/`..` segments and drops a request with `%00` unanswered), so an
/// accepted socket waits here first: the check peeks at its first request line without
/// consuming it (`MSG_PEEK`), answers 404 itself to a static path PROTOCOL.md 1.2 refuses
/// (a `..` segment, a backslash or a NUL once decoded), and hands every other socket to lws
/// untouched (``adopt``, i.e. `lws_adopt_socket_vhost`, as lws-adopt.h describes),
/// remembering the raw target for the `/dir` redirect. Plain HTTP only: under TLS the line
/// is encrypted. Later requests on a kept-alive connection are judged after lws'
/// normalisation.
final class RequestLineCheck {
    /// One accepted connection whose request line is not complete yet.
    final class Waiting {
        let id: UInt64
        let fd: Int32
        let poll: UnsafeMutablePointer<uv_poll_t>
        let deadline: UInt64
        unowned let check: RequestLineCheck

        init(id: UInt64, fd: Int32, poll: UnsafeMutablePointer<uv_poll_t>, deadline: UInt64, check: RequestLineCheck) {
            self.id = id
            self.fd = fd
            self.poll = poll
            self.deadline = deadline
            self.check = check
        }
    }

    /// Bytes of the first request looked at; a line longer than this goes to lws as is.
    static let peekBytes = 8_192
    /// How often a connection whose request line is incomplete is looked at again.
    static let recheckMs: UInt64 = 20
    /// How long a connection may take to send its request line (one that never sends a
    /// byte is closed then).
    static let maxWaitMs: UInt64 = 10_000

    private let loop: UnsafeMutablePointer<uv_loop_t>
    private var waiting: [UInt64: Waiting] = [:]
    private var nextID: UInt64 = 1
    /// The raw target of each adopted connection's first request, by descriptor (taken by
    /// the HTTP callback of that request).
    var rawTargets: [Int32: RawRequestTarget] = [:]
    /// Hands a socket to lws; `false` when lws refused it (lws closed it then).
    var adopt: (Int32) -> Bool = { _ in false }
    /// A connection it closed itself (refused or given up): a descriptor is free again.
    var closed: () -> Void = {}
    /// Asks for ``recheck(_:now:)`` of connection `id` at loop time `at`.
    var schedule: (_ id: UInt64, _ at: UInt64) -> Void = { _, _ in }
    /// The loop's clock (ms).
    var now: () -> UInt64 = { 0 }

    init(loop: UnsafeMutablePointer<uv_loop_t>) {
        self.loop = loop
    }

    /// Takes a socket just accepted (non-blocking): it goes to lws once its first request
    /// line passed.
    func watch(_ fd: Int32) {
        let poll = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
        guard uv_poll_init(loop, poll, fd) == 0 else {
            poll.deallocate()
            Glibc.close(fd)
            return
        }
        let w = Waiting(id: nextID, fd: fd, poll: poll, deadline: now() + Self.maxWaitMs, check: self)
        nextID += 1
        waiting[w.id] = w
        poll.pointee.data = Unmanaged.passRetained(w).toOpaque()
        startPolling(w)
        schedule(w.id, w.deadline)
    }

    /// Closes the connections still waiting (before the loop closes).
    func close() {
        for w in waiting.values { finish(w, adopting: false) }
        waiting.removeAll()
    }

    private func startPolling(_ w: Waiting) {
        uv_poll_start(w.poll, Int32(UV_READABLE.rawValue)) { handle, _, _ in
            guard let data = handle?.pointee.data else { return }
            let w = Unmanaged<Waiting>.fromOpaque(data).takeUnretainedValue()
            w.check.look(at: w)
        }
    }

    /// A recheck came due: look again (or give up after ``maxWaitMs``).
    func recheck(_ id: UInt64, now: UInt64) {
        guard let w = waiting[id] else { return }
        if now >= w.deadline {
            finish(w, adopting: false)
            return
        }
        startPolling(w)
    }

    /// Peeks at what arrived; decides once the request line is complete.
    private func look(at w: Waiting) {
        var buffer = [UInt8](repeating: 0, count: Self.peekBytes)
        let n = buffer.withUnsafeMutableBytes { recv(w.fd, $0.baseAddress, $0.count, Int32(MSG_PEEK)) }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
        guard n > 0 else {
            finish(w, adopting: false)  // closed or failed before a request
            return
        }
        let seen = buffer[..<n]
        guard let end = seen.firstIndex(of: UInt8(ascii: "\n")) else {
            if n >= Self.peekBytes {
                finish(w, adopting: true)  // an endless line: lws' own limits answer it
            } else {
                // Incomplete: look again shortly (polling now would spin on the peeked bytes).
                uv_poll_stop(w.poll)
                schedule(w.id, now() + Self.recheckMs)
            }
            return
        }
        var line = seen[..<end]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        let target = RawRequestTarget(requestLine: line)
        if let target, target.isRefusedStaticPath {
            refuse(w, head: target.method == "HEAD")
            return
        }
        if let target { rawTargets[w.fd] = target } else { rawTargets.removeValue(forKey: w.fd) }
        finish(w, adopting: true)
    }

    /// Answers 404 itself (PROTOCOL.md 1.2), then closes.
    private func refuse(_ w: Waiting, head: Bool) {
        // Read what was sent (it was only peeked), so closing does not reset the answer away.
        var scratch = [UInt8](repeating: 0, count: 16_384)
        var drained = 0
        while drained < 1 << 20 {
            let n = scratch.withUnsafeMutableBytes { recv(w.fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            drained += n
        }
        let body = "not found\n"
        var answer = "HTTP/1.1 404 Not Found\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: \(body.utf8.count)\r\n"
        answer += "x-content-type-options: nosniff\r\ncache-control: no-store\r\nconnection: close\r\n\r\n"
        if !head { answer += body }
        let bytes = Array(answer.utf8)
        _ = bytes.withUnsafeBytes { send(w.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(w.fd, Int32(SHUT_WR))
        finish(w, adopting: false)
    }

    /// Stops watching `w`; hands its socket to lws or closes it.
    private func finish(_ w: Waiting, adopting: Bool) {
        waiting.removeValue(forKey: w.id)
        uv_poll_stop(w.poll)
        uv_close(UnsafeMutableRawPointer(w.poll).assumingMemoryBound(to: uv_handle_t.self)) { handle in
            guard let handle else { return }
            if let data = handle.pointee.data { Unmanaged<Waiting>.fromOpaque(data).release() }
            UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_poll_t.self).deallocate()
        }
        if adopting {
            if !adopt(w.fd) { rawTargets.removeValue(forKey: w.fd) }
        } else {
            rawTargets.removeValue(forKey: w.fd)
            Glibc.close(w.fd)
            closed()
        }
    }
}

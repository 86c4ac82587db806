// SPDX-License-Identifier: MIT
import CLibWebSockets

#if canImport(Glibc)
import Glibc
#endif

/// One TLS connection of the page port under `--tls-cert` (service thread only).
/// libwebsockets terminates TLS on it as a raw socket (no HTTP parsing of its own), and
/// the plaintext travels through a socket pair: its inner end is served like any plain
/// connection (``PlainHTTPConnection``, which carries the WebSocket after an upgrade),
/// so HTTPS requests are judged as sent (PROTOCOL.md 1.2) exactly as plain ones are. This
/// object is the outer end: bytes from the client go in, bytes the inner side wrote go
/// back out through TLS, each way bounded (``highWater``) with flow control, not buffers
/// without end.
final class TLSTunnel {
    let id: UInt64
    /// The raw TLS connection (lws).
    let wsi: OpaquePointer
    /// Our end of the socket pair.
    let fd: Int32
    /// Plaintext from the client not yet taken by the inner side.
    private var toInner: [UInt8] = []
    private var toInnerOffset = 0
    /// Plaintext from the inner side not yet written through TLS.
    private(set) var toClient: [UInt8] = []
    private var toClientOffset = 0
    /// The inner side closed (its end of the pair read 0).
    var innerEnded = false
    /// The inner side ended and everything it wrote went out: the client's input is read
    /// and dropped until it closes or the linger deadline passes (``Lingering``), so a
    /// client still sending a body it was refused reads the answer instead of a reset.
    var lingering = false
    /// lws stopped reading the client (``toInner`` is over ``highWater``).
    var clientReadsPaused = false
    /// The first plaintext arrived: lws' handshake timeout is cleared then.
    var established = false
    private(set) var closed = false
    private let poll: SocketPoll

    /// Bytes buffered one way before the other side is asked to wait.
    static let highWater = 256 << 10

    /// Watches `fd` (our end of the pair); `nil` when libuv cannot (the descriptor is
    /// closed then). `onEvent` is called with this tunnel when `fd` is readable or writable.
    init?(
        id: UInt64, wsi: OpaquePointer, fd: Int32, loop: UnsafeMutablePointer<uv_loop_t>,
        onEvent: @escaping (TLSTunnel, Bool, Bool) -> Void
    ) {
        guard let poll = SocketPoll(loop: loop, fd: fd) else {
            Glibc.close(fd)
            return nil
        }
        self.id = id
        self.wsi = wsi
        self.fd = fd
        self.poll = poll
        poll.onEvent = { [unowned self] readable, writable in onEvent(self, readable, writable) }
    }

    /// Bytes waiting to go to the client.
    var pendingToClient: Int { toClient.count - toClientOffset }
    /// Bytes waiting to go to the inner side.
    var pendingToInner: Int { toInner.count - toInnerOffset }

    /// Polls for input from the inner side unless enough waits for the client, and for
    /// output while bytes for the inner side wait.
    func updatePolling() {
        guard !closed else { return }
        poll.poll(readable: !innerEnded && pendingToClient < Self.highWater, writable: pendingToInner > 0)
    }

    /// Plaintext from the client: handed to the inner side now, or kept until it reads.
    /// `false` when the pair failed.
    func fromClient(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if pendingToInner == 0 {
            toInner.removeAll(keepingCapacity: true)
            toInnerOffset = 0
        }
        toInner.append(contentsOf: bytes)
        return flushToInner()
    }

    /// Drops what waits for the inner side (it is gone).
    func discardToInner() {
        toInner.removeAll(keepingCapacity: false)
        toInnerOffset = 0
    }

    /// Sends what waits for the inner side; `false` when the pair failed.
    func flushToInner() -> Bool {
        while pendingToInner > 0 {
            let n = toInner.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return send(fd, base + toInnerOffset, buffer.count - toInnerOffset, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                toInnerOffset += n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            return false
        }
        if pendingToInner == 0 {
            toInner.removeAll(keepingCapacity: toInner.count <= Self.highWater)
            toInnerOffset = 0
        }
        return true
    }

    /// What a read from the inner side gave.
    enum InnerRead {
        case bytes(Int)
        case nothing
        case ended
    }

    /// Reads what the inner side wrote into ``toClient``.
    func readFromInner(scratch: UnsafeMutableRawBufferPointer) -> InnerRead {
        while true {
            let n = recv(fd, scratch.baseAddress, scratch.count, 0)
            if n > 0 {
                if pendingToClient == 0 {
                    toClient.removeAll(keepingCapacity: true)
                    toClientOffset = 0
                }
                toClient.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<n]))
                return .bytes(n)
            }
            if n == 0 { return .ended }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .nothing : .ended
        }
    }

    /// Copies up to `count` bytes for the client to `destination`; returns how many.
    func takeForClient(into destination: UnsafeMutableRawPointer, count: Int) -> Int {
        let n = min(count, pendingToClient)
        guard n > 0 else { return 0 }
        toClient.withUnsafeBytes { buffer in
            if let base = buffer.baseAddress { destination.copyMemory(from: base + toClientOffset, byteCount: n) }
        }
        toClientOffset += n
        if pendingToClient == 0 {
            toClient.removeAll(keepingCapacity: toClient.count <= Self.highWater)
            toClientOffset = 0
        }
        return n
    }

    /// Closes our end of the pair (the inner side then reads its end) and frees the poll
    /// handle.
    func close() {
        guard !closed else { return }
        closed = true
        poll.close()
        Glibc.close(fd)
    }
}

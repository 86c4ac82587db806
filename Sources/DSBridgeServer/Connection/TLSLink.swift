// SPDX-License-Identifier: MIT
import CLibWebSockets

/// The I/O of one TLS connection of the page port under `--tls-cert` (service thread only):
/// a libwebsockets connection in the raw role with TLS, on its one descriptor. lws does the
/// handshake and the records; its plaintext feeds the same ``PlainHTTPConnection`` a plain
/// socket feeds (so HTTPS and WSS follow exactly the plain rules), and what that connection
/// writes goes into `lws_write` from the caller's buffer.
///
/// lws pushes what it decrypted (`LWS_CALLBACK_RAW_RX`); the connection reads in its own
/// rhythm (a request head at most ``ServiceLoop/plainScratch`` at a time, nothing while an
/// answer is pending), so the bytes wait here until read. While the connection does not
/// want input, lws stops reading the socket (`lws_rx_flow_control`), so what waits here is
/// at most what lws had decrypted already.
final class TLSLink {
    /// The lws connection (raw role, TLS).
    let wsi: OpaquePointer
    /// Plaintext lws delivered, not read yet (from ``inputOffset``).
    private var input: [UInt8] = []
    private var inputOffset = 0
    /// The client's stream ended (lws reported the connection's close).
    private(set) var ended = false
    /// lws reads the socket (flow control on).
    private var reading = true
    /// The connection wants input (it asked to poll for it).
    private(set) var wantsInput = true
    /// lws kept part of a write for the socket's next writability (`lws_partial_buffered`).
    private(set) var outputBuffered = false
    /// The first plaintext arrived: the handshake timeout of lws is cleared then.
    private var established = false
    /// Listed to be read at the end of the loop pass (ServiceLoop+TLS).
    var readQueued = false

    init(wsi: OpaquePointer) {
        self.wsi = wsi
    }

    /// The descriptor lws owns (for `shutdown` only: lws closes it).
    var socket: Int32 { Int32(lws_get_socket_fd(wsi)) }

    /// Plaintext waits to be read.
    var hasInput: Bool { inputOffset < input.count }
    /// How many bytes of plaintext wait to be read.
    var waitingBytes: Int { input.count - inputOffset }

    // MARK: Input

    /// lws decrypted `bytes` (its buffer, valid during the callback): kept until read.
    func received(_ bytes: UnsafeRawBufferPointer) {
        if !established {
            // lws gives a new TLS connection `timeout_secs` to "establish"; a raw one never
            // does in its eyes: past the handshake, time is the connection's own
            // (PlainHTTPConnection's deadlines).
            established = true
            lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0)
        }
        if !hasInput {
            input.removeAll(keepingCapacity: input.capacity <= Self.keptInputBytes)
            inputOffset = 0
        }
        input.append(contentsOf: bytes)
    }

    /// lws is closing the connection (it reports that once, as the last thing): reads
    /// return `.ended` once what waits is read, and nothing is asked of lws any more.
    func peerEnded() { ended = true }

    /// Copies up to `buffer.count` waiting bytes into `buffer`, consuming them unless `peek`.
    func read(into buffer: UnsafeMutableRawBufferPointer, peek: Bool) -> PlainHTTPConnection.ReadResult {
        let n = min(buffer.count, input.count - inputOffset)
        guard n > 0, let destination = buffer.baseAddress else { return ended ? .ended : .wouldBlock }
        input.withUnsafeBytes { source in
            if let base = source.baseAddress { destination.copyMemory(from: base + inputOffset, byteCount: n) }
        }
        if !peek { inputOffset += n }
        return .bytes(n)
    }

    /// The connection wants input or not: lws reads the socket only while it does.
    func want(input wanted: Bool) {
        wantsInput = wanted
        guard wanted != reading, !ended else { return }
        reading = wanted
        lws_rx_flow_control(wsi, wanted ? 1 : 0)
        // lws on libuv hands over what it buffered meanwhile only in its idle pass, which a
        // wake of its event pipe schedules.
        if wanted, let context = lws_get_context(wsi) { lws_cancel_service(context) }
    }

    // MARK: Output

    /// Hands `bytes` to lws, which writes them through TLS; what the socket does not take
    /// now lws keeps and sends when it can (then reports the connection writable).
    /// `false` when the connection failed.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
        guard !ended else { return false }
        // The raw role has no protocol of its own to write (lws_write goes straight to
        // lws_issue_raw, whatever the write protocol says): nothing is written before `base`, so no LWS_PRE headroom is needed,
        // and TLS only reads the bytes.
        let pointer = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
        guard lws_write(wsi, pointer, bytes.count, LWS_WRITE_HTTP) >= Int32(clamping: bytes.count) else { return false }
        if lws_partial_buffered(wsi) != 0 { outputBuffered = true }
        return true
    }

    /// lws reported the connection writable: whatever it kept has gone to the socket.
    func drained() { outputBuffered = false }

    /// Asks lws to close the connection (at its next service of it: this may run inside one
    /// of its callbacks for the connection). Its user data no longer points at the
    /// connection, which may be gone before lws reports anything more about it.
    func close() {
        guard !ended else { return }
        ended = true
        lws_wsi_user(wsi)?.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        // That timeout is served in lws' idle pass on libuv, which only an lws event
        // schedules: a close decided outside lws' callbacks (a deadline of the connection's
        // own) waited for the next one (15 s and more in a test), its descriptor held. A wake of its
        // event pipe is that event.
        if let context = lws_get_context(wsi) { lws_cancel_service(context) }
    }

    /// The input buffer keeps its capacity up to this size between reads.
    static let keptInputBytes = 64 << 10
}

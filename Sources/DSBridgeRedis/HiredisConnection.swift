// SPDX-License-Identifier: MIT
import CHiredis

#if canImport(Glibc)
import Glibc
#endif

/// One hiredis 0.14 connection (a `redisContext`), used by the one thread that made it:
/// hiredis contexts are not thread-safe, so this class is not `Sendable` and never leaves
/// its thread. Any failure leaves the context unusable (hiredis keeps its error); the owner
/// then drops it and connects anew.
final class HiredisConnection {
    private let context: UnsafeMutablePointer<redisContext>
    /// The connection's socket.
    let fd: Int32

    private init(context: UnsafeMutablePointer<redisContext>) {
        self.context = context
        self.fd = CHiredis_fd(context)
    }

    deinit {
        redisFree(context)
    }

    /// The outcome of ``open(_:timeoutMs:wake:shouldStop:)``.
    enum OpenResult {
        case connected(HiredisConnection)
        case failed(HiredisFailure)
        /// `shouldStop` answered true while connecting.
        case stopped
    }

    /// Connects to `endpoint` without blocking the thread longer than a poll: the connect is
    /// non-blocking and waited for with `poll`, so a stop (`wake` plus `shouldStop`) ends the
    /// wait at once. The connection is left non-blocking (see ``makeBlocking(timeoutMs:)``),
    /// close-on-exec, and for TCP with keep-alive (hiredis 0.14 sets TCP_NODELAY itself).
    static func open(_ endpoint: RedisEndpoint, timeoutMs: Int, wake: WakeSignal, shouldStop: () -> Bool) -> OpenResult {
        let made: UnsafeMutablePointer<redisContext>?
        switch endpoint.address {
        case .tcp(let host, let port): made = redisConnectNonBlock(host, Int32(port))
        case .unix(let path): made = redisConnectUnixNonBlock(path)
        }
        guard let made else { return .failed(HiredisFailure(message: "hiredis could not allocate a connection (out of memory)")) }
        let connection = HiredisConnection(context: made)
        if let failure = connection.failure(doing: "connect to \(endpoint)") { return .failed(failure) }
        CHiredis_set_cloexec(made)
        let deadline = ContinuousClock.now + .milliseconds(timeoutMs)
        while true {
            let events = PollWait.wait(
                socket: connection.fd, readable: false, writable: true, wake: wake, timeoutMs: PollWait.milliseconds(until: deadline))
            if shouldStop() { return .stopped }
            if events.writable { break }
            if ContinuousClock.now >= deadline {
                return .failed(HiredisFailure(message: "could not connect to \(endpoint) within \(timeoutMs) ms (connect timeout)"))
            }
        }
        let error = CHiredis_socket_error(connection.fd)
        guard error == 0 else { return .failed(HiredisFailure(message: "could not connect to \(endpoint): \(String(cString: strerror(error)))")) }
        if case .tcp = endpoint.address { _ = redisEnableKeepAlive(made) }
        return .connected(connection)
    }

    /// Makes the connection blocking, replies waited for at most `timeoutMs` per read (and
    /// writes at most as long): what ``roundTrip(_:)`` and ``readReply()`` need.
    func makeBlocking(timeoutMs: Int) -> HiredisFailure? {
        guard CHiredis_make_blocking(context) == REDIS_OK else {
            return HiredisFailure(message: "could not make the redis socket blocking: \(String(cString: strerror(CHiredis_errno())))")
        }
        let timeout = timeval(tv_sec: timeoutMs / 1000, tv_usec: (timeoutMs % 1000) * 1000)
        guard redisSetTimeout(context, timeout) == REDIS_OK else {
            return failure(doing: "set the command timeout") ?? HiredisFailure(message: "could not set the command timeout")
        }
        return nil
    }

    // MARK: Writing

    /// Appends `commands` to the output buffer (nothing is written yet: see ``flush()`` and
    /// ``writeSome()``), encoded here into one buffer (``RESPEncoding``) and handed to
    /// hiredis in one copy (`redisAppendFormattedCommand`).
    func append(_ commands: some Collection<RedisCommand>) -> HiredisFailure? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(RESPEncoding.estimatedSize(of: commands))
        for command in commands { RESPEncoding.append(command, to: &bytes) }
        guard !bytes.isEmpty else { return nil }
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars -> HiredisFailure? in
                guard let base = chars.baseAddress, redisAppendFormattedCommand(context, base, chars.count) == REDIS_OK else {
                    return failure(doing: "queue a command") ?? HiredisFailure(message: "could not queue a command")
                }
                return nil
            }
        }
    }

    /// Whether appended bytes are still waiting to be written.
    var hasPendingOutput: Bool { CHiredis_has_pending_output(context) != 0 }

    /// Writes the whole output buffer (blocking connection), or fails.
    func flush() -> HiredisFailure? {
        while hasPendingOutput {
            if let failure = writeSome() { return failure }
        }
        return nil
    }

    /// Writes what the socket takes now (one `write`; a non-blocking connection may take part).
    func writeSome() -> HiredisFailure? {
        var done: Int32 = 0
        guard redisBufferWrite(context, &done) == REDIS_OK else { return failure(doing: "write to redis") }
        return nil
    }

    // MARK: Reading

    /// Waits for the next reply (blocking connection; at most the command timeout per read).
    func readReply() -> Result<RedisValue, HiredisFailure> {
        var reply: UnsafeMutableRawPointer?
        guard redisGetReply(context, &reply) == REDIS_OK, let reply else {
            return .failure(failure(doing: "read a reply") ?? HiredisFailure(message: "redis sent no reply"))
        }
        defer { freeReplyObject(reply) }
        return .success(RedisValue(reply: reply.assumingMemoryBound(to: redisReply.self)))
    }

    /// Writes `commands` and reads their replies, in order.
    func roundTrip(_ commands: [RedisCommand]) -> Result<[RedisValue], HiredisFailure> {
        if let failure = append(commands) ?? flush() { return .failure(failure) }
        var values: [RedisValue] = []
        values.reserveCapacity(commands.count)
        for _ in commands {
            switch readReply() {
            case .success(let value): values.append(value)
            case .failure(let failure): return .failure(failure)
            }
        }
        return .success(values)
    }

    /// Reads what the socket holds now into hiredis' reader (one `read`), after `poll` said
    /// it is readable; the end of the connection is a failure.
    func readAvailable() -> HiredisFailure? {
        guard redisBufferRead(context) == REDIS_OK else { return failure(doing: "read from redis") }
        return nil
    }

    /// The next complete reply already read by ``readAvailable()``, or `nil`.
    func bufferedReply() -> Result<RedisValue?, HiredisFailure> {
        var reply: UnsafeMutableRawPointer?
        guard redisGetReplyFromReader(context, &reply) == REDIS_OK else {
            return .failure(failure(doing: "parse a reply") ?? HiredisFailure(message: "redis sent a reply hiredis cannot parse"))
        }
        guard let reply else { return .success(nil) }
        defer { freeReplyObject(reply) }
        return .success(RedisValue(reply: reply.assumingMemoryBound(to: redisReply.self)))
    }

    // MARK: Errors

    /// The context's error, said for a person, or `nil` when it has none. Reads errno, so
    /// call it right after the failed hiredis call.
    private func failure(doing action: String) -> HiredisFailure? {
        let code = CHiredis_err(context)
        guard code != 0 else { return nil }
        let systemError = CHiredis_errno()
        let text = String(cString: CHiredis_errstr(context))
        switch code {
        case REDIS_ERR_IO where systemError == EAGAIN || systemError == EWOULDBLOCK:
            return HiredisFailure(message: "timed out: no answer from redis within the command timeout (while trying to \(action))")
        case REDIS_ERR_EOF:
            return HiredisFailure(message: "redis closed the connection (while trying to \(action))")
        case REDIS_ERR_PROTOCOL:
            return HiredisFailure(message: "redis protocol error while trying to \(action): \(text)")
        default:
            return HiredisFailure(message: "could not \(action): \(text)")
        }
    }
}

// SPDX-License-Identifier: MIT
import CLibWebSockets
import DSBridge

#if canImport(Glibc)
import Glibc
#endif

/// HTTP/1.1 on the page port and the admin listener, served by dsbridged itself (service
/// thread): each request head is read as sent, framed (PROTOCOL.md 1.3), judged
/// (PROTOCOL.md 1.2: the path as sent, on every request of a kept-alive connection) and
/// routed (``routeMain(_:)``, on the admin listener ``routeAdmin(_:)``); on the page port a
/// WebSocket upgrade turns the connection into a WebSocket (ServiceLoop+WebSocket). Under
/// TLS the same, on the plaintext libwebsockets decrypted (ServiceLoop+TLS).
extension ServiceLoop {
    /// How long a new connection may take to send its first request head.
    static let firstHeadMs: UInt64 = 10_000
    /// How long a kept-alive connection may wait for its next request.
    static let keepAliveIdleMs: UInt64 = 60_000
    /// How long a request head may take once its first byte has arrived.
    static let headMs: UInt64 = 10_000

    /// Takes an accepted socket of `listener`.
    func servePlainHTTP(_ fd: Int32, listener: PlainHTTPConnection.Listener) {
        guard let events = eventLoop else {
            Glibc.close(fd)
            return
        }
        guard
            let connection = PlainHTTPConnection(
                id: makeID(), fd: fd, listener: listener, loop: events.loop, deadline: loopNow + Self.firstHeadMs,
                owner: self)
        else {
            if listener == .page { pageConnectionClosed() }
            return
        }
        servePlainHTTP(connection)
    }

    /// Serves `connection` (a plain socket, or a TLS connection fed by lws) from its first
    /// request on.
    func servePlainHTTP(_ connection: PlainHTTPConnection) {
        plainConnections[connection.id] = connection
        connection.updatePolling(readable: true)
        armPlainTimer(connection)
    }

    /// Closes every plain connection (the loop is closing).
    func closePlainConnections() {
        for connection in plainConnections.values {
            connection.close()
            connection.exchange = nil
        }
        plainConnections.removeAll()
    }

    // MARK: Events

    func plainEvent(_ c: PlainHTTPConnection, readable: Bool, writable: Bool) {
        if writable {
            guard c.flush() else { return closePlain(c) }
            if c.isFlushed { advancePlain(c) }
            guard !c.closed else { return }
        }
        if readable {
            switch c.phase {
            case .head: readHead(c)
            case .body: readBody(c)
            case .answering: inputWhileAnswering(c)
            case .lingering: dropLingeringInput(c)
            }
        }
        // Upgraded: the WebSocket side polls from now on (ServiceLoop+WebSocket).
        guard c.webSocket == nil else { return }
        serveBuffered(c)
        if !c.closed { c.updatePolling(readable: wantsInput(c)) }
    }

    private func wantsInput(_ c: PlainHTTPConnection) -> Bool {
        switch c.phase {
        case .head: true
        case .body, .lingering: true
        case .answering: !c.inputHeld
        }
    }

    // MARK: Reading a request

    /// Reads the next request head; a WebSocket upgrade turns the connection into a
    /// WebSocket, with what came behind the head. `fromSocket: false` looks only at what is
    /// buffered (pipelined requests).
    private func readHead(_ c: PlainHTTPConnection, fromSocket: Bool = true) {
        let limit = config.maxHeaderBytes
        let scratch = plainScratch
        let window = min(scratch.count, limit + 1)
        guard let seen = readConsuming(c, window: window, fromSocket: fromSocket) else { return }
        let now = loopNow
        guard let end = HTTPRequestHead.endOfHead(in: UnsafeRawBufferPointer(rebasing: scratch[..<seen])) else {
            if seen > limit { return refuseHead(c, .tooLarge(limit: limit)) }
            if c.headStartedAt == nil {
                c.headStartedAt = now
                c.deadline = min(c.deadline, now + Self.headMs)
            }
            // Kept until the rest arrives.
            c.buffered = Array(UnsafeRawBufferPointer(rebasing: scratch[..<seen]))
            armPlainTimer(c)
            return
        }
        guard end <= limit else { return refuseHead(c, .tooLarge(limit: limit)) }
        let head: HTTPRequestHead
        do {
            head = try HTTPRequestHead(parsing: UnsafeRawBufferPointer(rebasing: scratch[..<end]))
        } catch {
            return refuseHead(c, error)
        }
        // Framing a smuggler could play on (two readers taking the body's end differently),
        // no Host, an upgrade with a body: 400 and close (PROTOCOL.md 1.3).
        let framing: HTTPRequestHead.BodyFraming
        do {
            framing = try head.bodyFraming()
        } catch {
            return refuseHead(c, error)
        }
        if head.isWebSocketUpgrade {
            // The admin listener has no WebSocket endpoint: 400, as when libwebsockets served it.
            guard c.listener == .page else { return refuseHead(c, .malformed("the admin listener has no WebSocket endpoint")) }
            guard origins.allows(head.header("origin")) else {
                // Refused with an answer that says the connection closes.
                logger.info("WebSocket refused: origin not allowed", metadata: ["bridge.peer": "\(c.peer)"])
                return refuseHead(c, .forbiddenOrigin)
            }
            // What came behind the head is the page's first frames.
            return upgrade(c, head: head, early: Array(UnsafeRawBufferPointer(rebasing: scratch[end..<seen])))
        }
        // A body not framed by Content-Length (chunked) cannot be skipped: the connection
        // ends after the answer (the endpoints answer 411).
        let contentLength = framing.contentLength
        let framed = contentLength != nil
        let bodyLength = contentLength ?? 0
        let bodyNow = min(bodyLength, seen - end)
        // What follows the body came pipelined: served once this request is answered.
        if end + bodyNow < seen { c.buffered = Array(UnsafeRawBufferPointer(rebasing: scratch[(end + bodyNow)..<seen])) }
        let exchange = makePlainExchange(c, head: head, contentLength: contentLength)
        c.exchange = exchange
        c.keepAlive = head.keepsAlive && framed && !stopping
        c.closeAfterAnswer = !c.keepAlive
        c.answerWritten = false
        c.bodyRemaining = bodyLength
        c.headStartedAt = nil
        c.phase = bodyLength > 0 ? .body : .answering
        c.deadline = bodyLength > 0 ? now + UInt64(max(0, config.bodyTimeoutMs)) + 1_000 : .max
        exchanges[exchange.id] = exchange
        if c.listener == .admin {
            routeAdmin(exchange)
        } else if head.target.isRefusedStaticPath {
            respond(exchange, .text(404, "not found"))
        } else {
            routeMain(exchange)
        }
        guard !c.closed, c.exchange === exchange else { return }
        if bodyLength > 0, exchange.onBody != nil, exchange.answer == nil,
            head.header("expect")?.lowercased() == "100-continue", bodyNow < bodyLength
        {
            guard c.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return closePlain(c) }
        }
        if bodyNow > 0 {
            deliverBody(c, UnsafeRawBufferPointer(rebasing: scratch[end..<(end + bodyNow)]))
        } else if bodyLength == 0 {
            bodyCompleted(c)
        }
        guard !c.closed else { return }
        // The body's 408 deadline, only when part of it is still missing.
        if c.exchange === exchange { queueBodyDeadline(exchange) }
        armPlainTimer(c)
    }

    /// A consuming read of a head (``readHead(_:fromSocket:)``): what was buffered, then
    /// what the socket has, up to `window` bytes in all, into ``plainScratch``. `nil` when
    /// there is nothing to look at, or the connection closed.
    private func readConsuming(_ c: PlainHTTPConnection, window: Int, fromSocket: Bool) -> Int? {
        var seen = c.buffered.count
        if seen > 0 {
            c.buffered.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: plainScratch[..<seen]).copyMemory(from: $0) }
            c.buffered = []
        }
        guard fromSocket, seen < window else { return seen > 0 ? seen : nil }
        switch c.read(into: UnsafeMutableRawBufferPointer(rebasing: plainScratch[seen..<window])) {
        case .ended:
            // The client has sent all it will: a whole head already read is still served
            // (the poll reports the end again afterwards); anything else ends here.
            guard seen > 0, HTTPRequestHead.endOfHead(in: UnsafeRawBufferPointer(rebasing: plainScratch[..<seen])) != nil else {
                closePlain(c)
                return nil
            }
        case .wouldBlock:
            break
        case .bytes(let n):
            seen += n
        }
        return seen > 0 ? seen : nil
    }

    /// Serves requests already read (pipelined behind the one just answered) while each is
    /// answered at once; stops at one answered later, or at a head not complete yet.
    private func serveBuffered(_ c: PlainHTTPConnection) {
        while !c.closed, c.phase == .head, !c.buffered.isEmpty {
            let served = c.completedRequests
            readHead(c, fromSocket: false)
            guard c.completedRequests > served || c.phase != .head else { return }
        }
    }

    /// The exchange of a request read here.
    private func makePlainExchange(_ c: PlainHTTPConnection, head: HTTPRequestHead, contentLength: Int?) -> HTTPExchange {
        let path = String(decoding: head.target.decodedPath, as: UTF8.self)
        let peer = clientAddresses.resolve(peer: c.peer, forwardedFor: head.header("x-forwarded-for"))
        let exchange = HTTPExchange(
            id: makeID(), method: HTTPMethod(rawValue: head.methodToken) ?? .other,
            path: path, peer: peer, headers: RequestHeaders(head: head, contentLength: contentLength))
        exchange.connection = c
        exchange.adminListener = c.listener == .admin
        // Admin calls carry arguments a page may get whole: bounded as a session's replay.
        exchange.bodyLimit = exchange.adminListener ? bridge.configuration.replayMaxBytes : bridge.configuration.maxMessageBytes
        exchange.rawTarget = head.target
        return exchange
    }

    private func readBody(_ c: PlainHTTPConnection) {
        let scratch = plainScratch
        let window = UnsafeMutableRawBufferPointer(rebasing: scratch[..<min(scratch.count, c.bodyRemaining)])
        switch c.read(into: window) {
        case .ended: closePlain(c)
        case .wouldBlock: return
        case .bytes(let n): deliverBody(c, UnsafeRawBufferPointer(rebasing: scratch[..<n]))
        }
    }

    /// Body bytes of the current request: kept for its handler, or dropped (answered
    /// already, or over the limit: 413 once complete).
    private func deliverBody(_ c: PlainHTTPConnection, _ bytes: UnsafeRawBufferPointer) {
        c.bodyRemaining -= bytes.count
        if let exchange = c.exchange, !c.answerWritten, exchange.onBody != nil, !exchange.bodyTooLarge {
            if exchange.body.count + bytes.count > exchange.bodyLimit {
                exchange.bodyTooLarge = true
                exchange.body = []
            } else {
                exchange.body.append(contentsOf: bytes)
            }
        }
        if c.bodyRemaining == 0 { bodyCompleted(c) }
    }

    /// The current request is read whole: its handler runs.
    private func bodyCompleted(_ c: PlainHTTPConnection) {
        if let exchange = c.exchange, !c.answerWritten {
            exchange.bodyDeadline = nil
            if let handler = exchange.onBody {
                exchange.onBody = nil
                if exchange.bodyTooLarge { respond(exchange, tooLarge(exchange)) } else { handler(exchange) }
                // The handler has read the body into what it keeps (counted against the
                // memory budget there): the raw bytes are not kept while the answer waits.
                exchange.body = []
            }
        }
        guard !c.closed else { return }
        if c.phase == .body { c.phase = .answering }
        // The body's deadline is met: an answer being made has none of its own here (a sync
        // call is bounded by its own timeouts). Left armed, it closed the connection under a
        // call that ran longer than the body timeout, without an answer.
        if c.phase == .answering { c.deadline = .max }
        advancePlain(c)
    }

    /// Input while an answer is pending: the next request (pipelined) waits until the
    /// answer is out; the end of input closes the connection.
    private func inputWhileAnswering(_ c: PlainHTTPConnection) {
        var probe: UInt8 = 0
        switch withUnsafeMutableBytes(of: &probe, { c.peek(into: $0) }) {
        case .ended: closePlain(c)
        case .wouldBlock: break
        case .bytes: c.inputHeld = true
        }
    }

    private func dropLingeringInput(_ c: PlainHTTPConnection) {
        switch c.read(into: plainScratch) {
        case .ended: closePlain(c)
        case .wouldBlock: break
        case .bytes(let n):
            if c.lingering?.drop(n) == false { closePlain(c) }
        }
    }

    // MARK: Answering

    /// `exchange`'s answer is set: written now.
    func plainAnswerReady(_ c: PlainHTTPConnection, _ exchange: HTTPExchange) {
        guard !c.closed, c.exchange === exchange, !c.answerWritten, let answer = exchange.answer else { return }
        c.answerWritten = true
        exchanges.removeValue(forKey: exchange.id)
        if answer.closeAfter { c.closeAfterAnswer = true }
        let bytes = answer.encoded(
            extraHeaders: exchange.extraHeaders, omitBody: exchange.method == .head,
            closing: c.closeAfterAnswer)
        guard c.write(bytes) else { return closePlain(c) }
        advancePlain(c)
        serveBuffered(c)
        if !c.closed, c.webSocket == nil { c.updatePolling(readable: wantsInput(c)) }
    }

    /// Moves the current request on once its answer is written and its body read: the
    /// next request (keep-alive), a lingering close, or waiting for what is missing.
    private func advancePlain(_ c: PlainHTTPConnection) {
        guard c.exchange != nil, c.answerWritten else { return }
        if c.closeAfterAnswer {
            // Closing: once the kernel has everything, end output and read what the
            // client still sends until it closes too (no reset over the answer).
            guard c.isFlushed else { return }
            c.shutdownOutput()
            c.exchange = nil
            c.buffered = []
            c.phase = .lingering
            let lingering = Lingering(now: loopNow)
            c.lingering = lingering
            c.deadline = lingering.deadline
            armPlainTimer(c)
            return
        }
        // The rest of the body is read (and dropped) before the next request.
        guard c.bodyRemaining == 0 else {
            c.phase = .body
            return
        }
        c.exchange = nil
        c.completedRequests += 1
        c.phase = .head
        c.inputHeld = false
        c.deadline = loopNow + Self.keepAliveIdleMs
        armPlainTimer(c)
    }

    /// Answers a head that cannot be served (400, 431) and closes, lingering.
    private func refuseHead(_ c: PlainHTTPConnection, _ failure: HTTPRequestHead.Failure) {
        var answer = HTTPAnswer.text(failure.status, failure.reason)
        answer.closeAfter = true
        refuse(c, answer, extraHeaders: [])
    }

    /// Answers `c`'s current head (read already) with `answer`, a refusal: the connection
    /// closes, lingering.
    func refuse(_ c: PlainHTTPConnection, _ answer: HTTPAnswer, extraHeaders: [(String, String)]) {
        c.buffered = []
        let exchange = HTTPExchange(id: makeID(), method: .other, path: "", peer: c.peer)
        exchange.connection = c
        c.exchange = exchange
        c.closeAfterAnswer = true
        c.answerWritten = false
        c.bodyRemaining = 0
        c.phase = .answering
        exchange.extraHeaders = extraHeaders
        exchanges[exchange.id] = exchange
        respond(exchange, answer)
        if !c.closed { c.updatePolling(readable: wantsInput(c)) }
    }

    /// Closes `c` now, whatever it carries (HTTP or, since an upgrade, a WebSocket).
    func closeConnection(_ c: PlainHTTPConnection) {
        if let socket = c.webSocket { closeSocket(socket) } else { closePlain(c) }
    }

    /// Closes `c` now; a request still in it is dropped (its late answer finds nothing).
    private func closePlain(_ c: PlainHTTPConnection) {
        guard !c.closed else { return }
        c.close()
        plainConnections.removeValue(forKey: c.id)
        if let exchange = c.exchange, exchanges[exchange.id] === exchange { exchanges.removeValue(forKey: exchange.id) }
        c.exchange = nil
        if c.listener == .page { pageConnectionClosed() }
        trimHeapAfterBursts()
    }

    // MARK: Deadlines

    /// Queues `c`'s next deadline if it is earlier than the one already queued.
    private func armPlainTimer(_ c: PlainHTTPConnection) {
        let next = c.deadline
        guard next != .max else { return }
        if let armed = c.armedDeadline, armed <= next { return }
        c.armedDeadline = next
        deadlines.schedule(.plain(c.id), at: next)
    }

    /// A deadline of connection `id` came (stale entries are ignored).
    func plainDeadlineDue(_ id: UInt64, deadline: UInt64, now: UInt64) {
        guard let c = plainConnections[id], c.armedDeadline == deadline else { return }
        c.armedDeadline = nil
        if now >= c.deadline {
            // A head or body that did not come in time, an idle keep-alive connection, or
            // a lingering close that ran out: closed without an answer.
            return closePlain(c)
        }
        armPlainTimer(c)
    }
}

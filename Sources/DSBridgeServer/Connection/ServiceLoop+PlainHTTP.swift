// SPDX-License-Identifier: MIT
import DSBridge

#if canImport(Glibc)
import Glibc
#endif

/// HTTP/1.1 on the page port and the admin listener, served by dsbridged itself (service
/// thread): the shell of each connection's ``HTTPConnectionMachine``. It reads what the
/// machine asks for, routes the requests the machine hands over (``routeMain(_:)``, on the
/// admin listener ``routeAdmin(_:)``), writes their answers and does what the machine says
/// next. On the page port a WebSocket upgrade turns the connection into a WebSocket
/// (ServiceLoop+WebSocket). Under TLS the same, on the plaintext libwebsockets decrypted
/// (ServiceLoop+TLS).
extension ServiceLoop {
    /// The timeouts of every HTTP connection (PROTOCOL.md 1.3).
    var httpTimeouts: HTTPConnectionMachine.Timeouts {
        HTTPConnectionMachine.Timeouts(bodyMs: UInt64(max(0, config.bodyTimeoutMs)))
    }

    /// A new connection's machine, from now.
    func newHTTPMachine() -> HTTPConnectionMachine {
        HTTPConnectionMachine(now: loopNow, timeouts: httpTimeouts, maxHeaderBytes: config.maxHeaderBytes)
    }

    /// Takes an accepted socket of `listener`.
    func servePlainHTTP(_ fd: Int32, listener: PlainHTTPConnection.Listener) {
        guard let events = eventLoop else {
            Glibc.close(fd)
            return
        }
        guard
            let connection = PlainHTTPConnection(
                id: makeID(), fd: fd, listener: listener, loop: events.loop, http: newHTTPMachine(), owner: self)
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
            if c.isFlushed { perform(c.http.flushed(now: loopNow), on: c) }
            guard !c.closed else { return }
        }
        if readable { readPlain(c) }
        drive(c)
    }

    /// One read of what the machine asks for.
    private func readPlain(_ c: PlainHTTPConnection) {
        let scratch = plainScratch
        let window = c.http.readWindow(scratch: scratch.count)
        switch c.read(into: UnsafeMutableRawBufferPointer(rebasing: scratch[..<window])) {
        case .ended:
            perform(c.http.peerEnded(), on: c)
        case .wouldBlock:
            break
        case .bytes(let n):
            guard c.http.received(UnsafeRawBufferPointer(rebasing: scratch[..<n]), now: loopNow) else { return closePlain(c) }
        }
    }

    /// Does what the machine says until it waits, then polls for what it wants and arms its
    /// deadline. (Not nested: an answer written while a request is routed here returns to
    /// this loop, which serves what was pipelined behind it.)
    func drive(_ c: PlainHTTPConnection) {
        guard !c.driving else { return }
        c.driving = true
        while !c.closed, c.webSocket == nil {
            if stopping { c.http.stopKeepingAlive() }
            let action = c.http.next(now: loopNow)
            if case .wait = action { break }
            perform(action, on: c)
        }
        c.driving = false
        guard !c.closed, c.webSocket == nil else { return }
        c.updatePolling(readable: c.http.wantsInput)
        armPlainTimer(c)
    }

    private func perform(_ action: HTTPConnectionMachine.Action, on c: PlainHTTPConnection) {
        guard !c.closed else { return }
        switch action {
        case .wait:
            break
        case .request(let head, let framing):
            serve(head, framing: framing, on: c)
        case .refuse(let failure):
            refuse(c, .text(failure.status, failure.reason), extraHeaders: [])
        case .write(let bytes):
            if !c.write(bytes) { closePlain(c) }
        case .bodyComplete(let body, let tooLarge):
            bodyCompleted(c, body: body, tooLarge: tooLarge)
        case .bodyTimedOut:
            guard let exchange = c.exchange, exchange.answer == nil else { return closePlain(c) }
            exchange.onBody = nil
            exchange.awaitingAnswer = false
            var a = HTTPAnswer.text(408, "request body not received within \(config.bodyTimeoutMs) ms")
            a.closeAfter = true
            respond(exchange, a)
        case .shutdownOutput:
            c.shutdownOutput()
            c.exchange = nil
            armPlainTimer(c)
        case .close:
            closePlain(c)
        }
    }

    // MARK: Serving a request

    /// A request head read whole: a WebSocket upgrade (page port), or a request routed.
    private func serve(_ head: HTTPRequestHead, framing: HTTPRequestHead.BodyFraming, on c: PlainHTTPConnection) {
        if head.isWebSocketUpgrade {
            // The admin listener has no WebSocket endpoint: 400, as when libwebsockets served it.
            guard c.listener == .page else {
                let failure = HTTPRequestHead.Failure.malformed("the admin listener has no WebSocket endpoint")
                return refuse(c, .text(failure.status, failure.reason), extraHeaders: [])
            }
            guard origins.allows(head.header("origin")) else {
                // Refused with an answer that says the connection closes.
                logger.info("WebSocket refused: origin not allowed", metadata: ["bridge.peer": "\(c.peer)"])
                let failure = HTTPRequestHead.Failure.forbiddenOrigin
                return refuse(c, .text(failure.status, failure.reason), extraHeaders: [])
            }
            return upgrade(c, head: head)
        }
        let exchange = makePlainExchange(c, head: head, contentLength: framing.contentLength)
        c.exchange = exchange
        exchanges[exchange.id] = exchange
        if c.listener == .admin {
            routeAdmin(exchange)
        } else if head.target.isRefusedStaticPath {
            respond(exchange, .text(404, "not found"))
        } else {
            routeMain(exchange)
        }
        guard !c.closed, c.exchange === exchange else { return }
        let wantsBody = exchange.onBody != nil && exchange.answer == nil
        perform(c.http.routed(wantsBody: wantsBody, bodyLimit: exchange.bodyLimit, now: loopNow), on: c)
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

    /// The current request's body is read whole: its handler runs (413 when it was over
    /// the limit).
    private func bodyCompleted(_ c: PlainHTTPConnection, body: [UInt8], tooLarge overLimit: Bool) {
        guard let exchange = c.exchange, exchange.answer == nil, let handler = exchange.onBody else { return }
        exchange.onBody = nil
        if overLimit { return respond(exchange, tooLarge(exchange)) }
        exchange.body = body
        handler(exchange)
        // The handler has read the body into what it keeps (counted against the memory
        // budget there): the raw bytes are not kept while the answer waits.
        exchange.body = []
    }

    // MARK: Answering

    /// `exchange`'s answer is set: written now.
    func plainAnswerReady(_ c: PlainHTTPConnection, _ exchange: HTTPExchange) {
        guard !c.closed, c.exchange === exchange, let answer = exchange.answer,
            exchanges.removeValue(forKey: exchange.id) != nil
        else { return }
        let closing = c.http.answer(closeAfter: answer.closeAfter)
        let bytes = answer.encoded(
            extraHeaders: exchange.extraHeaders, omitBody: exchange.method == .head, closing: closing)
        guard c.write(bytes) else { return closePlain(c) }
        perform(c.http.written(flushed: c.isFlushed, now: loopNow), on: c)
        // Requests pipelined behind this one are served now (unless this runs inside the
        // connection's own loop, which goes on by itself).
        drive(c)
    }

    /// Answers `c`'s current head (read already) with `answer`, a refusal: the connection
    /// closes, lingering.
    func refuse(_ c: PlainHTTPConnection, _ answer: HTTPAnswer, extraHeaders: [(String, String)]) {
        let exchange = HTTPExchange(id: makeID(), method: .other, path: "", peer: c.peer)
        exchange.connection = c
        exchange.extraHeaders = extraHeaders
        c.exchange = exchange
        exchanges[exchange.id] = exchange
        var closing = answer
        closing.closeAfter = true
        respond(exchange, closing)
    }

    /// Closes `c` now, whatever it carries (HTTP or, since an upgrade, a WebSocket).
    func closeConnection(_ c: PlainHTTPConnection) {
        if let socket = c.webSocket { closeSocket(socket) } else { closePlain(c) }
    }

    /// Closes `c` now; a request still in it is dropped (its late answer finds nothing).
    private func closePlain(_ c: PlainHTTPConnection) {
        guard !c.closed else { return }
        c.close()
        c.http.closed()
        plainConnections.removeValue(forKey: c.id)
        if let exchange = c.exchange, exchanges[exchange.id] === exchange { exchanges.removeValue(forKey: exchange.id) }
        c.exchange = nil
        if c.listener == .page { pageConnectionClosed() }
        trimHeapAfterBursts()
    }

    // MARK: Deadlines

    /// Queues `c`'s deadline if it is earlier than the one already queued.
    private func armPlainTimer(_ c: PlainHTTPConnection) {
        armConnectionDeadline(.plain(c.id), at: c.http.deadline, armed: &c.armedDeadline)
    }

    /// A deadline of connection `id` came (stale entries are ignored).
    func plainDeadlineDue(_ id: UInt64, deadline: UInt64, now: UInt64) {
        guard let c = plainConnections[id], c.armedDeadline == deadline else { return }
        c.armedDeadline = nil
        perform(c.http.deadlinePassed(now: now), on: c)
        guard !c.closed else { return }
        drive(c)
    }
}

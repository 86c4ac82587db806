// SPDX-License-Identifier: MIT
import CLibWebSockets
import DSBridge
import Foundation

/// lws callback of the page listener's HTTP side (service thread).
func mainHTTPCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
    guard let wsi, let loop = ServiceLoop.from(wsi) else { return 0 }
    return loop.http(wsi, reason, user, input, len)
}

extension ServiceLoop {
    func http(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ len: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            drainInbox()
            return 0
        case LWS_CALLBACK_WSI_DESTROY:
            // Every connection of a vhost ends here (on its protocols[0]), upgraded or not.
            pageConnectionClosed()
            return 0
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            // A WebSocket upgrade that did not offer dsbridge.v1 lands on this protocol.
            _ = lws_return_http_status(wsi, 400, "WebSocket upgrade must offer subprotocol dsbridge.v1")
            return -1
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            // lws hangs up on an upgrade whose subprotocol list names none of ours (no HTTP
            // answer at all); PROTOCOL.md 1 wants 400.
            guard !offersBridgeSubprotocol(wsi) else { return 0 }
            _ = lws_return_http_status(wsi, 400, "WebSocket upgrade must offer subprotocol dsbridge.v1")
            return 1
        case LWS_CALLBACK_HTTP:
            guard let user else { return -1 }
            var uriPointer: UnsafeMutablePointer<CChar>?
            var uriLength: Int32 = 0
            _ = lws_http_get_uri_and_method(wsi, &uriPointer, &uriLength)
            let path = uriPointer.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: Int(uriLength)), as: UTF8.self) } ?? "/"
            let id = makeID()
            user.storeBytes(of: id, as: UInt64.self)
            let exchange = HTTPExchange(id: id, wsi: wsi, method: Self.method(wsi), path: path, peer: clientAddress(wsi))
            exchange.bodyLimit = bridge.configuration.maxMessageBytes
            for (name, token) in [
                ("origin", WSI_TOKEN_ORIGIN), ("authorization", WSI_TOKEN_HTTP_AUTHORIZATION),
                ("content-length", WSI_TOKEN_HTTP_CONTENT_LENGTH),
                ("cookie", WSI_TOKEN_HTTP_COOKIE), ("user-agent", WSI_TOKEN_HTTP_USER_AGENT),
                ("transfer-encoding", WSI_TOKEN_HTTP_TRANSFER_ENCODING),
            ] {
                if let v = header(wsi, token) { exchange.headers.set(name, v) }
            }
            exchange.queryArguments = queryArguments(wsi)
            for name in ["x-dsbridge-token", "x-dsbridge-after", "x-dsbridge-auth"] {
                if let v = customHeader(wsi, name) { exchange.headers.set(name, v) }
            }
            // A sync or admin call's W3C trace context (PROTOCOL.md 4, 6), read only while tracing is on.
            if bridge.callSpans != nil, let v = customHeader(wsi, "traceparent") { exchange.headers.set("traceparent", v) }
            exchanges[id] = exchange
            routeMain(exchange)
            return 0
        case LWS_CALLBACK_HTTP_BODY:
            guard let exchange = exchange(user) else { return 0 }
            if exchange.lingering != nil { return exchange.lingering?.drop(len) == true ? 0 : -1 }
            // Answered before the body (405, 403, 401, an early 413, 408): dropped.
            guard exchange.onBody != nil else { return 0 }
            if exchange.bodyTooLarge { return 0 }
            if exchange.body.count + len > exchange.bodyLimit {
                exchange.bodyTooLarge = true
                exchange.body = []
                return 0
            }
            if let input, len > 0 { exchange.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len)) }
            return 0
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            guard let exchange = exchange(user) else { return 0 }
            exchange.bodyDeadline = nil
            exchange.bodyComplete = true
            if exchange.lingering != nil { return -1 }  // the whole body was read: close cleanly
            guard let handler = exchange.onBody else { return 0 }  // answered before the body
            exchange.onBody = nil
            // An answer decided right here (a sync call run on this thread, an error) is
            // written from this callback: no WRITEABLE round trip.
            answeringInCallback = exchange.id
            if exchange.bodyTooLarge {
                respond(exchange, tooLarge(exchange))
            } else {
                handler(exchange)
            }
            // Every handler reads the body at once (into a request it keeps, counted against
            // the memory budget where it is held): the raw bytes are not kept while the
            // answer waits (an admin call may wait minutes).
            exchange.body = []
            answeringInCallback = nil
            if exchange.answer != nil, !exchange.headersSent, exchanges[exchange.id] === exchange {
                return writeAnswer(exchange)
            }
            return 0
        case LWS_CALLBACK_HTTP_WRITEABLE:
            guard let exchange = exchange(user), exchange.lingering == nil else { return 0 }  // lingering: all written
            return writeAnswer(exchange)
        case LWS_CALLBACK_CLOSED_HTTP:
            if let user {
                exchanges.removeValue(forKey: user.load(as: UInt64.self))
                user.storeBytes(of: 0, as: UInt64.self)
                trimHeapAfterBursts()
            }
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, len)
        }
    }

    private static func method(_ wsi: OpaquePointer) -> HTTPMethod {
        let tokens: [(lws_token_indexes, HTTPMethod)] = [
            (WSI_TOKEN_GET_URI, .get), (WSI_TOKEN_POST_URI, .post), (WSI_TOKEN_OPTIONS_URI, .options),
            (WSI_TOKEN_HEAD_URI, .head), (WSI_TOKEN_PUT_URI, .put), (WSI_TOKEN_PATCH_URI, .patch),
            (WSI_TOKEN_DELETE_URI, .delete),
        ]
        for (token, method) in tokens where lws_hdr_total_length(wsi, token) > 0 { return method }
        return .other
    }

    private func exchange(_ user: UnsafeMutableRawPointer?) -> HTTPExchange? {
        guard let user else { return nil }
        return exchanges[user.load(as: UInt64.self)]
    }

    /// The query's arguments, one per lws fragment (lws splits at `&` and `;` and decodes
    /// each; `lws_hdr_copy` would join them with `,`).
    private func queryArguments(_ wsi: OpaquePointer) -> [String] {
        var arguments: [String] = []
        var index: Int32 = 0
        while true {
            let length = Int(lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, index))
            guard length > 0 else { break }
            var buf = [CChar](repeating: 0, count: length + 1)
            guard lws_hdr_copy_fragment(wsi, &buf, Int32(buf.count), WSI_TOKEN_HTTP_URI_ARGS, index) >= 0 else { break }
            arguments.append(Self.string(buf))
            index += 1
        }
        return arguments
    }

    /// Whether the upgrade's `Sec-WebSocket-Protocol` list names `dsbridge.v1`.
    private func offersBridgeSubprotocol(_ wsi: OpaquePointer) -> Bool {
        guard let list = header(wsi, WSI_TOKEN_PROTOCOL) else { return false }
        return list.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "dsbridge.v1" }
    }

    /// The 413 for a body over the exchange's limit (JSON on the admin listener).
    func tooLarge(_ exchange: HTTPExchange) -> HTTPAnswer {
        var a =
            exchange.adminListener
            ? HTTPAnswer.json(413, ["error": "too large"])
            : HTTPAnswer.text(413, "request body larger than \(exchange.bodyLimit) bytes")
        a.closeAfter = true
        return a
    }

    /// Sets the answer and has it written (service thread): at once on a plain-HTTP
    /// connection, else from lws' WRITEABLE.
    func respond(_ exchange: HTTPExchange, _ answer: HTTPAnswer) {
        exchange.answer = answer
        if let connection = exchange.connection { return plainAnswerReady(connection, exchange) }
        // (The callback that is running writes it when it returns.)
        if answeringInCallback != exchange.id, let wsi = exchange.wsi { lws_callback_on_writable(wsi) }
    }

    /// Answers from another thread.
    func respondLater(_ exchange: HTTPExchange) -> @Sendable (HTTPAnswer) -> Void {
        exchange.awaitingAnswer = true
        let inbox = server.inbox
        let id = exchange.id
        return { answer in inbox.post(.httpAnswer(id, answer)) }
    }

    /// A drain closed the socket of `sessionID`: admin calls waiting on it answer 503.
    func answerAdminCallsDraining(_ sessionID: String?) {
        guard let sessionID else { return }
        for exchange in exchanges.values where exchange.adminCallSession == sessionID && exchange.awaitingAnswer {
            exchange.awaitingAnswer = false
            respond(exchange, .json(503, ["error": "draining"]))
        }
    }

    /// Waits for the body, refusing it up front when Content-Length is over the limit.
    func expectBody(_ exchange: HTTPExchange, then handler: @escaping (HTTPExchange) -> Void) {
        if let length = exchange.headers.contentLengthNumber, length > exchange.bodyLimit {
            respond(exchange, tooLarge(exchange))
            return
        }
        if exchange.headers.has("transfer-encoding") {
            // lws 4.1 does not de-chunk request bodies; browsers send Content-Length.
            var a = HTTPAnswer.text(411, "a request body needs Content-Length (chunked bodies are not accepted)")
            a.closeAfter = true
            respond(exchange, a)
            return
        }
        if !exchange.headers.has("content-length") {
            // Without Content-Length lws never reports the body's completion: treat it as empty.
            handler(exchange)
            return
        }
        exchange.onBody = handler
        let deadline = loopNow + UInt64(max(0, config.bodyTimeoutMs))
        exchange.bodyDeadline = deadline
        // A plain connection's body usually came with its head: its reader queues the
        // deadline only if it did not (ServiceLoop+PlainHTTP), not once per request for 10 s.
        if exchange.connection == nil { queueBodyDeadline(exchange) }
    }

    /// Queues `exchange`'s 408 deadline (``expectBody(_:then:)``) while its body is awaited.
    func queueBodyDeadline(_ exchange: HTTPExchange) {
        guard exchange.onBody != nil, let deadline = exchange.bodyDeadline else { return }
        deadlines.schedule(.exchange(exchange.id), at: deadline)
    }

    /// A request whose body is still incomplete at its deadline gets 408 and is closed, so
    /// a body dribbled byte by byte cannot hold a connection and its buffer.
    func bodyDeadlinePassed(_ exchange: HTTPExchange, now: UInt64) {
        if let lingering = exchange.lingering {
            // Outside any lws callback: close synchronously (see livenessDue).
            if now >= lingering.deadline, let wsi = exchange.wsi { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC) }
            return
        }
        guard exchange.onBody != nil, let deadline = exchange.bodyDeadline, now >= deadline else { return }
        exchange.onBody = nil
        exchange.body = []
        exchange.bodyDeadline = nil
        var a = HTTPAnswer.text(408, "request body not received within \(config.bodyTimeoutMs) ms")
        a.closeAfter = true
        respond(exchange, a)
    }

    /// Answers up to this size are written together with their headers.
    static let inlineBodyBytes = 16 << 10

    private func writeAnswer(_ exchange: HTTPExchange) -> Int32 {
        guard let answer = exchange.answer, let wsi = exchange.wsi else { return 0 }
        // No answer to HEAD has a body, whatever its status (RFC 9110 9.3.2).
        let omitBody = answer.omitBody || exchange.method == .head
        if !exchange.headersSent {
            // A small answer goes out with its headers in one write (one TCP segment).
            let inline = !omitBody && answer.body.count <= Self.inlineBodyBytes
            var buffer = [UInt8](repeating: 0, count: pre + 4096 + (inline ? answer.body.count : 0))
            let ok = buffer.withUnsafeMutableBufferPointer { buf -> Bool in
                guard let base = buf.baseAddress else { return false }
                let start = base + pre
                var p: UnsafeMutablePointer<UInt8>? = start
                let end = base + pre + 4096 - 1
                if lws_add_http_common_headers(wsi, UInt32(answer.status), answer.contentType, lws_filepos_t(answer.body.count), &p, end) != 0 { return false }
                var headers = answer.headers + exchange.extraHeaders
                headers.append(("X-Content-Type-Options", "nosniff"))
                headers.append(("Cache-Control", "no-store"))
                if answer.closeAfter { headers.append(("Connection", "close")) }
                for (name, value) in headers {
                    let key = name.lowercased() + ":"
                    let v = Array(value.utf8)
                    if lws_add_http_header_by_name(wsi, key, v, Int32(v.count), &p, end) != 0 { return false }
                }
                if !inline { return lws_finalize_write_http_header(wsi, start, &p, end) == 0 }
                guard lws_finalize_http_header(wsi, &p, end) == 0, var q = p else { return false }
                answer.body.withUnsafeBufferPointer { body in
                    if let b = body.baseAddress { q.update(from: b, count: body.count) }
                }
                q += answer.body.count
                // Written as headers: lws sends the bytes as they are (HTTP/1.1).
                let length = start.distance(to: q)
                return lws_write(wsi, start, length, LWS_WRITE_HTTP_HEADERS) == Int32(length)
            }
            guard ok else { return -1 }
            exchange.headersSent = true
            if answer.body.isEmpty || omitBody || inline {
                return finishTransaction(exchange, answer)
            }
            lws_callback_on_writable(wsi)
            return 0
        }
        let chunk = min(answer.body.count - exchange.bodyOffset, 64 << 10)
        let last = exchange.bodyOffset + chunk >= answer.body.count
        let needed = pre + chunk
        if writeBuffer.count < needed { writeBuffer = [UInt8](repeating: 0, count: max(needed, 64 << 10)) }
        let offset = exchange.bodyOffset
        let written = writeBuffer.withUnsafeMutableBufferPointer { buf -> Int32 in
            guard let base = buf.baseAddress else { return -1 }
            answer.body.withUnsafeBufferPointer { src in
                if let s = src.baseAddress { (base + pre).update(from: s + offset, count: chunk) }
            }
            return lws_write(wsi, base + pre, chunk, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        }
        guard written >= 0 else { return -1 }
        exchange.bodyOffset += chunk
        if last { return finishTransaction(exchange, answer) }
        lws_callback_on_writable(wsi)
        return 0
    }

    private func finishTransaction(_ exchange: HTTPExchange, _ answer: HTTPAnswer) -> Int32 {
        if answer.closeAfter, !exchange.bodyComplete, let length = exchange.headers.contentLengthNumber, length > 0 {
            // The body is still coming: linger instead of resetting the connection over it.
            if let wsi = exchange.wsi { shutdown(lws_get_socket_fd(wsi), Int32(SHUT_WR)) }
            exchange.onBody = nil
            exchange.body = []
            let lingering = Lingering(now: loopNow)
            exchange.lingering = lingering
            exchange.bodyDeadline = nil
            deadlines.schedule(.exchange(exchange.id), at: lingering.deadline)
            return 0
        }
        exchanges.removeValue(forKey: exchange.id)
        if answer.closeAfter { return -1 }
        guard let wsi = exchange.wsi else { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }
}

// SPDX-License-Identifier: MIT
import CLibWebSockets

/// The sync HTTP path (PROTOCOL.md 4) on one keep-alive connection, HTTP/1.1 written by
/// hand over an lws raw socket (worker thread): `POST /dsbridge/session` once, then
/// `POST /dsbridge/call` (`echo.syn` with the payload) one at a time, each timed. A 401
/// (the session expired) makes a new session.
///
/// With `--raw-echo` the server is the C echo (`bench/lws-echo.c`), which answers a POST
/// with its body: no session; the same call request (head and body, a placeholder token
/// of a real token's length) goes out, and a call counts when the answer is a 200 carrying
/// the body sent.
final class HTTPClient: Link {
    /// As long as dsbridged's tokens (144 random bits, base64url: 24 characters), for
    /// `--raw-echo`.
    static let placeholderToken = Array("AAAAAAAAAAAAAAAAAAAAAAAA".utf8)

    private enum Waiting {
        case nothing
        case session
        case call(sentAt: UInt64)
    }

    private var parser = HTTPResponseParser()
    private var waiting = Waiting.nothing
    private var sendSession = false
    private var sendCall = false
    private var callRequest: [UInt8] = []
    /// The body of ``callRequest`` (`--raw-echo`: what the answer must carry).
    private var callBody: [UInt8] = []
    private var callMadeAt: UInt64 = 0

    override func connected() {
        if worker.options.rawEcho {
            buildCallRequest(token: Self.placeholderToken)
            markReady()
            makeCall(now: monotonicNanos())
        } else {
            requestSession()
        }
    }

    private func requestSession() {
        sendSession = true
        wantWrite()
    }

    private func makeCall(now: UInt64) {
        guard ready, closeRequested == nil, worker.loadRuns else { return }
        sendCall = true
        callMadeAt = now
        wantWrite()
    }

    override func received(_ bytes: UnsafeRawBufferPointer) {
        parser.append(bytes)
        while true {
            let response: HTTPResponseParser.Response?
            do {
                response = try parser.next()
            } catch {
                worker.recordError("http.unreadableResponse")
                requestClose()
                return
            }
            guard let response else { return }
            handle(response)
        }
    }

    private func handle(_ r: HTTPResponseParser.Response) {
        let now = monotonicNanos()
        let was = waiting
        waiting = .nothing
        if r.closes { requestClose() }
        switch was {
        case .nothing:
            worker.recordError("http.unexpectedResponse")
        case .session:
            guard r.status == 200 else {
                worker.recordError("http.session.\(r.status)")
                requestClose()
                return
            }
            let token: [UInt8]? = r.body.withUnsafeBytes { raw in
                var scanner = ServerMessageScanner(raw)
                guard let m = try? scanner.next(), let t = m.token else { return nil }
                return Array(scanner.slice(t))
            }
            guard let token else {
                worker.recordError("http.session.noToken")
                requestClose()
                return
            }
            buildCallRequest(token: token)
            markReady()
            makeCall(now: now)
        case .call(let sentAt):
            if worker.counting { worker.stats.messages += 1 }
            if r.status == 401 {
                worker.recordError("http.401")
                requestSession()
                return
            }
            guard r.status == 200 else {
                worker.recordError("http.\(r.status)")
                makeCall(now: now)
                return
            }
            if worker.options.rawEcho {
                if r.body == callBody {
                    if worker.counting { worker.stats.calls += 1 }
                    worker.recordOperation(sentAt: sentAt, now: now)
                } else {
                    worker.recordError("http.echoMismatch")
                }
                makeCall(now: now)
                return
            }
            let code: Int64? = r.body.withUnsafeBytes { raw in
                var scanner = ServerMessageScanner(raw)
                return (try? scanner.next())?.code
            }
            if code == 0 {
                if worker.counting { worker.stats.calls += 1 }
                worker.recordOperation(sentAt: sentAt, now: now)
            } else {
                worker.recordError("http.code\(code.map(String.init) ?? "?")")
            }
            makeCall(now: now)
        }
    }

    private func buildCallRequest(token: [UInt8]) {
        var body: [UInt8] = [UInt8(ascii: "{")] + worker.methodMember.dropFirst()  // no leading comma
        body += Array(#","arg":{"data":"#.utf8)
        body += worker.payload
        body += Array("}}".utf8)
        let head =
            "POST /dsbridge/call HTTP/1.1\r\nHost: \(worker.options.host):\(worker.options.port)\r\n"
            + "Content-Type: application/json\r\nX-DSBridge-Token: \(String(decoding: token, as: UTF8.self))\r\n"
            + "Content-Length: \(body.count)\r\n\r\n"
        callRequest = Array(head.utf8) + body
        callBody = body
    }

    override func writeable() -> Int32 {
        if closeRequested != nil { return closeIfRequested() }
        guard let wsi else { return 0 }
        var c = worker.composer()
        if sendSession {
            sendSession = false
            c.raw(
                Array(
                    ("POST /dsbridge/session HTTP/1.1\r\nHost: \(worker.options.host):\(worker.options.port)\r\n"
                        + "Content-Length: 0\r\n\r\n").utf8))
            waiting = .session
        } else if sendCall {
            sendCall = false
            c.raw(callRequest)
            waiting = .call(sentAt: callMadeAt)
        } else {
            return 0
        }
        guard !c.overflowed else {
            worker.recordError("client.frameTooLarge")
            return -1
        }
        return worker.write(wsi, c, raw: true) ? 0 : -1
    }

    override func phaseChanged(_ phase: RunPhase) {
        switch phase {
        case .warmup, .measure:
            if case .nothing = waiting, !sendCall { makeCall(now: monotonicNanos()) }
        case .stop:
            requestClose()
        case .opening, .check:
            break
        }
    }
}

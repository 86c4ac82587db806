// SPDX-License-Identifier: MIT

/// HTTP/1.1 on one connection (either listener), as a machine without sockets: fed the bytes
/// read, the answers decided, the socket's flushes and end, and the clock; it returns what
/// the connection's shell (``PlainHTTPConnection`` driven by ServiceLoop+PlainHTTP) does next,
/// one ``Action`` at a time. Keep-alive and pipelining, `Expect: 100-continue`, the request
/// body and its timeout, the lingering close after a closing answer and the hand-over of an
/// upgrade are its states; its one deadline is ``deadline``.
///
/// The shell reads what ``readWindow(scratch:)`` allows into ``received(_:now:)``, then asks
/// ``next(now:)`` until it says ``Action/wait``, and reports what it did with a request
/// (``routed(wantsBody:bodyLimit:now:)``, ``answer(closeAfter:)`` then
/// ``written(flushed:now:)``, ``upgraded()``). No event returns a request but ``next(now:)``,
/// so a shell answering inside its handling of one never handles the next one nested.
struct HTTPConnectionMachine {
    /// The connection's timeouts (PROTOCOL.md 1.3).
    struct Timeouts: Equatable {
        /// How long a new connection may take to send its first request head.
        var firstHeadMs: UInt64 = 10_000
        /// How long a kept-alive connection may wait for its next request.
        var keepAliveIdleMs: UInt64 = 60_000
        /// How long a request head may take once its first byte has arrived.
        var headMs: UInt64 = 10_000
        /// How long a request body may take after its head (`bodyTimeoutMs`).
        var bodyMs: UInt64 = 10_000
    }

    /// The request being served.
    struct Request: Equatable {
        /// The connection closes once this request is answered.
        var closesAfter: Bool
        /// Its answer has been written (the rest of its body is read and dropped).
        var answered = false
        /// The routes keep its body (``Action/bodyComplete(_:tooLarge:)``), up to ``bodyLimit``.
        var wantsBody = false
        var bodyLimit = 0
        /// The body received so far (when kept), and whether it went over ``bodyLimit``.
        var body: [UInt8] = []
        var bodyTooLarge = false
        /// Body bytes still to come.
        var bodyRemaining: Int
        /// The client sent `Expect: 100-continue`.
        let expectsContinue: Bool

        /// Its answer is being written: the body, if any is still to come, is dropped.
        mutating func markAnswered(closeAfter: Bool) {
            answered = true
            closesAfter = closesAfter || closeAfter
            wantsBody = false
            body = []
        }
    }

    /// Where the connection is.
    enum State: Equatable {
        /// Waiting for a request head; `since`: when its first byte came (`nil`: none yet).
        case awaitingHead(since: UInt64?)
        /// A head was handed to the shell (``Action/request(_:framing:)``); it routes it and
        /// reports back (``routed(wantsBody:bodyLimit:now:)``, ``answer(closeAfter:)``, ``upgraded()``).
        case routing(Request)
        /// Reading the request's body.
        case readingBody(Request)
        /// The request is read whole; its answer is awaited.
        case answering(Request)
        /// A closing answer is written; waiting for the socket to take all of it.
        case closingAfterAnswer
        /// The answer is out and output shut: what the client still sends is read and dropped
        /// until it closes or ``Lingering`` runs out.
        case lingering(Lingering)
        /// A WebSocket upgrade took the connection over.
        case upgraded
        case closed
    }

    /// What the shell does next.
    enum Action: Equatable {
        /// Nothing until another event (more bytes, an answer, a flush, the deadline).
        case wait
        /// A request head (as sent) with its framing: the shell routes it (or upgrades, or
        /// refuses it with an answer).
        case request(HTTPRequestHead, framing: HTTPRequestHead.BodyFraming)
        /// A head that cannot be served: the shell answers `failure` (the connection closes).
        case refuse(HTTPRequestHead.Failure)
        /// Write these bytes (`100 Continue`).
        case write([UInt8])
        /// The request's body is complete (kept when the route asked for it).
        case bodyComplete([UInt8], tooLarge: Bool)
        /// The body did not arrive within its timeout and no answer was written: the shell
        /// answers 408 (the connection closes).
        case bodyTimedOut
        /// Everything is sent: shut the sending side (the connection lingers).
        case shutdownOutput
        /// Close the connection now, without an answer.
        case close
    }

    let timeouts: Timeouts
    /// The largest request head accepted (431 above).
    let maxHeaderBytes: Int
    private(set) var state: State
    /// When the connection is closed unless it makes progress (loop clock, ms; `.max`: none).
    private(set) var deadline: UInt64
    /// Requests answered on this connection.
    private(set) var completedRequests = 0
    /// Bytes read and not used yet: the start of a head sent in pieces, requests pipelined
    /// behind the current one, its body.
    private var input: [UInt8] = []
    private var inputStart = 0
    /// Another request may follow the current one (`false` once the server drains).
    private var keepsAliveAllowed = true

    init(now: UInt64, timeouts: Timeouts, maxHeaderBytes: Int) {
        self.timeouts = timeouts
        self.maxHeaderBytes = maxHeaderBytes
        state = .awaitingHead(since: nil)
        deadline = now + timeouts.firstHeadMs
    }

    /// Bytes read and waiting.
    var bufferedBytes: Int { input.count - inputStart }

    /// Whether the shell should poll for input: not while a request waits for its answer
    /// with the next one already read (pipelined input waits), nor once upgraded or closed.
    var wantsInput: Bool {
        switch state {
        case .awaitingHead, .readingBody, .lingering: true
        case .routing, .answering: bufferedBytes == 0
        case .closingAfterAnswer: false
        case .upgraded, .closed: false
        }
    }

    /// Most bytes the shell should read now: a head at most one byte over the limit (so an
    /// oversized head is seen without buffering more), a body up to its end.
    func readWindow(scratch: Int) -> Int {
        switch state {
        case .awaitingHead: max(1, min(scratch, maxHeaderBytes + 1 - bufferedBytes))
        case .readingBody(let request): max(1, min(scratch, request.bodyRemaining - bufferedBytes))
        default: scratch
        }
    }

    /// New requests are answered with `Connection: close` from now on (the server drains).
    mutating func stopKeepingAlive() { keepsAliveAllowed = false }

    // MARK: Events

    /// Bytes read from the socket. A lingering connection drops them (`false`: more than
    /// ``Lingering/maxBytes``: close).
    mutating func received(_ bytes: UnsafeRawBufferPointer, now: UInt64) -> Bool {
        switch state {
        case .lingering(var lingering):
            let kept = lingering.drop(bytes.count)
            state = .lingering(lingering)
            return kept
        case .closingAfterAnswer, .upgraded, .closed:
            return true
        default:
            if inputStart == input.count {
                input.removeAll(keepingCapacity: input.capacity <= Self.keptInputBytes)
                inputStart = 0
            }
            input.append(contentsOf: bytes)
            return true
        }
    }

    /// The client's stream ended: a whole request already read is still served; anything
    /// else closes.
    mutating func peerEnded() -> Action {
        if case .awaitingHead = state, hasWholeHead { return .wait }
        state = .closed
        return .close
    }

    /// What to do next, given what was read and where the request is.
    mutating func next(now: UInt64) -> Action {
        switch state {
        case .awaitingHead(let since):
            return nextHead(since: since, now: now)
        case .readingBody(var request):
            let available = min(bufferedBytes, request.bodyRemaining)
            if available > 0 {
                take(available, into: &request)
                state = .readingBody(request)
            }
            guard request.bodyRemaining == 0 else { return .wait }
            return bodyEnded(request, now: now)
        case .routing, .answering, .closingAfterAnswer, .lingering, .upgraded, .closed:
            return .wait
        }
    }

    /// The shell routed the current request (no answer yet, or one already written through
    /// ``answer(closeAfter:)``): `wantsBody` when its route keeps the body, up to `bodyLimit`
    /// bytes. `100 Continue` goes out when the client expects it and the body is still to come.
    mutating func routed(wantsBody: Bool, bodyLimit: Int, now: UInt64) -> Action {
        guard case .routing(var request) = state else { return .wait }
        request.wantsBody = wantsBody && !request.answered
        request.bodyLimit = bodyLimit
        if request.bodyRemaining > 0 {
            state = .readingBody(request)
            deadline = now + timeouts.bodyMs
            if request.wantsBody, request.expectsContinue, bufferedBytes < request.bodyRemaining {
                return .write(Self.continueLine)
            }
            // What came with the head.
            return next(now: now)
        }
        return bodyEnded(request, now: now)
    }

    /// The shell writes the current request's answer (its route asked `closeAfter`, or the
    /// request must close): `true` when the connection closes after it (the answer says
    /// `Connection: close`). Then ``written(flushed:now:)``.
    mutating func answer(closeAfter: Bool) -> Bool {
        switch state {
        case .routing(var request):
            request.markAnswered(closeAfter: closeAfter)
            state = .routing(request)
            return request.closesAfter
        case .readingBody(var request):
            request.markAnswered(closeAfter: closeAfter)
            state = .readingBody(request)
            return request.closesAfter
        case .answering(var request):
            request.markAnswered(closeAfter: closeAfter)
            state = .answering(request)
            return request.closesAfter
        default:
            return true
        }
    }

    /// The answer was handed to the socket (`flushed`: all of it taken): the connection
    /// closes lingering, or reads the rest of the body first, or waits for the next request
    /// (the shell then asks ``next(now:)``: a request pipelined behind is served).
    mutating func written(flushed: Bool, now: UInt64) -> Action {
        let request: Request
        switch state {
        case .routing(let r), .readingBody(let r), .answering(let r): request = r
        default: return .wait
        }
        guard request.answered else { return .wait }
        if request.closesAfter { return closeAfterAnswer(flushed: flushed, now: now) }
        if request.bodyRemaining > 0 {
            // The rest of the body is read (and dropped) before the next request, within the
            // body's time.
            if case .readingBody = state {} else { deadline = now + timeouts.bodyMs }
            state = .readingBody(request)
            return .wait
        }
        nextRequest(now: now)
        return .wait
    }

    /// The socket took everything written.
    mutating func flushed(now: UInt64) -> Action {
        guard case .closingAfterAnswer = state else { return .wait }
        return startLingering(now: now)
    }

    /// The upgrade was accepted: the WebSocket takes the connection, with the bytes the
    /// client sent behind the head (its first frames).
    mutating func upgraded() -> [UInt8] {
        let early = Array(bufferedSlice)
        input = []
        inputStart = 0
        state = .upgraded
        deadline = .max
        return early
    }

    /// The deadline (``deadline``) may have passed.
    mutating func deadlinePassed(now: UInt64) -> Action {
        guard now >= deadline else { return .wait }
        switch state {
        case .readingBody(var request) where !request.answered:
            // The one deadline of a body: answered 408 when no answer went out yet.
            request.wantsBody = false
            request.body = []
            state = .readingBody(request)
            deadline = .max
            return .bodyTimedOut
        case .upgraded, .closed:
            return .wait
        default:
            // A head or body that did not come in time, an idle keep-alive connection, or a
            // lingering close that ran out: closed without an answer.
            state = .closed
            return .close
        }
    }

    /// The shell closed the connection.
    mutating func closed() {
        state = .closed
        deadline = .max
        input = []
        inputStart = 0
    }

    // MARK: Steps

    private var bufferedSlice: ArraySlice<UInt8> { input[inputStart...] }

    /// A whole request head is buffered.
    private var hasWholeHead: Bool {
        input.withUnsafeBytes { HTTPRequestHead.endOfHead(in: UnsafeRawBufferPointer(rebasing: $0[inputStart...])) != nil }
    }

    private mutating func nextHead(since: UInt64?, now: UInt64) -> Action {
        let available = bufferedBytes
        guard available > 0 else { return .wait }
        let end = input.withUnsafeBytes { all in
            HTTPRequestHead.endOfHead(in: UnsafeRawBufferPointer(rebasing: all[inputStart...]))
        }
        guard let end else {
            if available > maxHeaderBytes { return refuse(.tooLarge(limit: maxHeaderBytes)) }
            if since == nil {
                state = .awaitingHead(since: now)
                deadline = min(deadline, now + timeouts.headMs)
            }
            return .wait
        }
        guard end <= maxHeaderBytes else { return refuse(.tooLarge(limit: maxHeaderBytes)) }
        let parsed = input.withUnsafeBytes { all -> Result<(HTTPRequestHead, HTTPRequestHead.BodyFraming), HTTPRequestHead.Failure> in
            let bytes = UnsafeRawBufferPointer(rebasing: all[inputStart..<(inputStart + end)])
            do {
                let head = try HTTPRequestHead(parsing: bytes)
                // Framing a smuggler could play on (two readers taking the body's end
                // differently), no Host, an upgrade with a body: 400 and close (PROTOCOL.md 1.3).
                return .success((head, try head.bodyFraming()))
            } catch let failure as HTTPRequestHead.Failure {
                return .failure(failure)
            } catch {
                return .failure(.malformed("\(error)"))
            }
        }
        inputStart += end
        switch parsed {
        case .failure(let failure):
            return refuse(failure)
        case .success(let (head, framing)):
            // A body not framed by Content-Length (chunked) cannot be skipped: the connection
            // ends after the answer (the endpoints answer 411).
            let length = framing.contentLength
            let request = Request(
                closesAfter: !(head.keepsAlive && length != nil && keepsAliveAllowed),
                bodyRemaining: length ?? 0,
                expectsContinue: head.header("expect")?.lowercased() == "100-continue")
            state = .routing(request)
            deadline = .max
            return .request(head, framing: framing)
        }
    }

    /// A head that cannot be served: what was read is dropped, the refusal answered, then
    /// the connection closes (lingering).
    private mutating func refuse(_ failure: HTTPRequestHead.Failure) -> Action {
        input = []
        inputStart = 0
        state = .answering(Request(closesAfter: true, bodyRemaining: 0, expectsContinue: false))
        deadline = .max
        return .refuse(failure)
    }

    /// Moves `count` buffered bytes of the body into the request (kept when wanted).
    private mutating func take(_ count: Int, into request: inout Request) {
        if request.wantsBody, !request.bodyTooLarge {
            if request.body.count + count > request.bodyLimit {
                request.bodyTooLarge = true
                request.body = []
            } else {
                request.body.append(contentsOf: input[inputStart..<(inputStart + count)])
            }
        }
        inputStart += count
        request.bodyRemaining -= count
    }

    /// The body is read whole: handed to the route (unless answered already), or, after an
    /// answer, the connection moves on.
    private mutating func bodyEnded(_ request: Request, now: UInt64) -> Action {
        var request = request
        if request.answered {
            // (An answer that closes the connection took it out of reading the body.)
            nextRequest(now: now)
            return next(now: now)
        }
        // The body's deadline is met: an answer being made has none of its own here (a sync
        // call is bounded by its own timeouts).
        deadline = .max
        let body = request.body
        let tooLarge = request.bodyTooLarge
        let handsOver = request.wantsBody
        request.body = []
        request.wantsBody = false
        state = .answering(request)
        return handsOver ? .bodyComplete(body, tooLarge: tooLarge) : .wait
    }

    private mutating func closeAfterAnswer(flushed: Bool, now: UInt64) -> Action {
        input = []
        inputStart = 0
        guard flushed else {
            state = .closingAfterAnswer
            deadline = .max
            return .wait
        }
        return startLingering(now: now)
    }

    private mutating func startLingering(now: UInt64) -> Action {
        let lingering = Lingering(now: now)
        state = .lingering(lingering)
        deadline = lingering.deadline
        return .shutdownOutput
    }

    private mutating func nextRequest(now: UInt64) {
        completedRequests += 1
        state = .awaitingHead(since: nil)
        deadline = now + timeouts.keepAliveIdleMs
    }

    /// `HTTP/1.1 100 Continue`, sent before a body the client holds back until told.
    static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// The input buffer keeps its capacity up to this size between requests.
    static let keptInputBytes = 64 << 10
}

// SPDX-License-Identifier: MIT
import Foundation
import Testing

@testable import DSBridgeServer

/// A machine driven as its shell drives it, recording what it says in words (the request
/// line, the refusal's status, the bytes written), so each test reads as a transcript.
private struct Driver {
    var machine: HTTPConnectionMachine
    var now: UInt64 = 0

    init(maxHeaderBytes: Int = 200, now: UInt64 = 0) {
        self.now = now
        machine = HTTPConnectionMachine(
            now: now, timeouts: HTTPConnectionMachine.Timeouts(bodyMs: 3_000), maxHeaderBytes: maxHeaderBytes)
    }

    /// Bytes read; then what `next` says (the first action that is not `wait`, or `wait`).
    mutating func read(_ text: String) -> String {
        let accepted = Array(text.utf8).withUnsafeBytes { machine.received($0, now: now) }
        return accepted ? next() : "over the lingering bound"
    }

    mutating func read(bytes: [UInt8]) -> String {
        _ = bytes.withUnsafeBytes { machine.received($0, now: now) }
        return next()
    }

    mutating func next() -> String { describe(machine.next(now: now)) }

    mutating func routed(wantsBody: Bool = false, bodyLimit: Int = 100) -> String {
        describe(machine.routed(wantsBody: wantsBody, bodyLimit: bodyLimit, now: now))
    }

    /// The shell writes an answer (all of it taken by the socket unless `flushed` is false):
    /// whether it says `Connection: close`, and what the machine says then.
    mutating func answer(closeAfter: Bool = false, flushed: Bool = true) -> (closing: Bool, then: String) {
        let closing = machine.answer(closeAfter: closeAfter)
        return (closing, describe(machine.written(flushed: flushed, now: now)))
    }

    mutating func at(_ time: UInt64) -> String {
        now = time
        return describe(machine.deadlinePassed(now: time))
    }

    var state: String {
        switch machine.state {
        case .awaitingHead(let since): since.map { "awaitingHead since \($0)" } ?? "awaitingHead"
        case .routing: "routing"
        case .readingBody(let r): "readingBody \(r.bodyRemaining)\(r.answered ? " answered" : "")"
        case .answering(let r): "answering\(r.answered ? " answered" : "")"
        case .closingAfterAnswer: "closingAfterAnswer"
        case .lingering: "lingering"
        case .upgraded: "upgraded"
        case .closed: "closed"
        }
    }
}

private func describe(_ action: HTTPConnectionMachine.Action) -> String {
    switch action {
    case .wait: "wait"
    case .request(let head, let framing):
        "request \(head.methodToken) \(String(decoding: head.target.decodedPath, as: UTF8.self))"
            + (framing.contentLength.map { $0 > 0 ? " body \($0)" : "" } ?? " unframed")
    case .refuse(let failure): "refuse \(failure.status)"
    case .write(let bytes): "write \(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))"
    case .bodyComplete(let body, let tooLarge): tooLarge ? "body too large" : "body \(String(decoding: body, as: UTF8.self))"
    case .bodyTimedOut: "body timed out"
    case .shutdownOutput: "shutdown output"
    case .close: "close"
    }
}

private let get = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
private func post(_ body: String, length: Int? = nil, extra: String = "") -> String {
    "POST /dsbridge/call HTTP/1.1\r\nHost: x\r\nContent-Length: \(length ?? body.utf8.count)\r\n\(extra)\r\n\(body)"
}

@Suite("HTTPConnectionMachine: HTTP/1.1 on one connection, event by event, without sockets")
struct HTTPConnectionMachineTests {
    // MARK: Heads

    @Test("a new connection waits for its first head, within firstHeadMs, and wants input")
    func freshConnection() {
        var d = Driver(now: 5)
        #expect(d.state == "awaitingHead")
        #expect(d.machine.deadline == 10_005)
        #expect(d.machine.wantsInput)
        #expect(d.next() == "wait")
        #expect(d.at(10_004) == "wait")
        #expect(d.at(10_005) == "close")
        #expect(d.state == "closed")
    }

    @Test("a head sent in pieces is served whole; its first byte starts the head's own deadline")
    func headInPieces() {
        var d = Driver()
        d.now = 100
        #expect(d.read("GET /a HT") == "wait")
        #expect(d.state == "awaitingHead since 100")
        #expect(d.machine.deadline == 10_000)  // min(first head 10 000, 100 + head 10 000)
        d.now = 200
        #expect(d.read("TP/1.1\r\nHost: x\r\n") == "wait")
        #expect(d.state == "awaitingHead since 100")
        #expect(d.read("\r\n") == "request GET /a")
        #expect(d.state == "routing")
        #expect(d.machine.deadline == .max)
    }

    @Test("the read window lets a head be at most one byte over the limit")
    func headWindow() {
        var d = Driver(maxHeaderBytes: 50)
        #expect(d.machine.readWindow(scratch: 1_000) == 51)
        #expect(d.read("GET /a HTTP/1.1\r\n") == "wait")
        #expect(d.machine.readWindow(scratch: 1_000) == 51 - 17)
    }

    @Test("heads over the limit get 431, with or without their end; malformed ones and smuggling framings 400")
    func refusedHeads() {
        var over = Driver(maxHeaderBytes: 30)
        #expect(over.read("GET /" + String(repeating: "a", count: 40)) == "refuse 431")
        #expect(over.state == "answering")
        var longEnd = Driver(maxHeaderBytes: 30)
        #expect(longEnd.read("GET /a HTTP/1.1\r\nHost: xxxxxxxxxxxxxxxxx\r\n\r\n") == "refuse 431")
        var exactly = Driver(maxHeaderBytes: 28)
        #expect(exactly.read(get) == "request GET /a")  // 28 bytes
        var oneOver = Driver(maxHeaderBytes: 27)
        #expect(oneOver.read(get) == "refuse 431")
        var malformed = Driver()
        #expect(malformed.read("GET /a\r\n\r\n") == "refuse 400")
        var twoLengths = Driver()
        #expect(twoLengths.read("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n") == "refuse 400")
        var noHost = Driver()
        #expect(noHost.read("GET / HTTP/1.1\r\n\r\n") == "refuse 400")
    }

    @Test("a refusal closes the connection after its answer, whatever was pipelined behind")
    func refusalCloses() {
        var d = Driver()
        #expect(d.read("GET /a\r\n\r\n" + get) == "refuse 400")
        let (closing, then) = d.answer()
        #expect(closing)
        #expect(then == "shutdown output")
        #expect(d.state == "lingering")
        #expect(d.next() == "wait")
    }

    // MARK: Keep-alive and pipelining

    @Test("an answered request leaves the connection waiting for the next, for keepAliveIdleMs")
    func keepAlive() {
        var d = Driver()
        #expect(d.read(get) == "request GET /a")
        #expect(d.routed() == "wait")
        #expect(d.state == "answering")
        d.now = 40
        let (closing, then) = d.answer()
        #expect(!closing)
        #expect(then == "wait")
        #expect(d.state == "awaitingHead")
        #expect(d.machine.completedRequests == 1)
        #expect(d.machine.deadline == 60_040)
        #expect(d.at(60_040) == "close")
    }

    @Test("pipelined requests are served one after another; input waits (no polling) while one is answered")
    func pipelining() {
        var d = Driver()
        #expect(d.read(get + "GET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c") == "request GET /a")
        #expect(!d.machine.wantsInput)
        #expect(d.routed() == "wait")
        #expect(d.next() == "wait")  // /b waits for /a's answer
        #expect(d.answer().then == "wait")
        #expect(d.next() == "request GET /b")
        #expect(d.routed() == "wait")
        #expect(d.answer().then == "wait")
        #expect(d.next() == "wait")
        #expect(d.state == "awaitingHead since 0")
        #expect(d.machine.wantsInput)
        #expect(d.read(" HTTP/1.1\r\nHost: x\r\n\r\n") == "request GET /c")
    }

    @Test("Connection: close, HTTP/1.0 and an unframed body close after the answer; a draining server too")
    func closesAfter() {
        for head in [
            "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "GET / HTTP/1.0\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
        ] {
            var d = Driver()
            #expect(d.read(head).hasPrefix("request"))
            #expect(d.routed() == "wait")
            #expect(d.answer().closing, "\(head)")
        }
        var draining = Driver()
        draining.machine.stopKeepingAlive()
        #expect(draining.read(get) == "request GET /a")
        #expect(draining.answer().closing)
    }

    @Test("an answer that closes waits for the socket to take it, then output is shut and the connection lingers")
    func closingAnswer() {
        var d = Driver()
        #expect(d.read(get) == "request GET /a")
        d.now = 10
        let (closing, then) = d.answer(closeAfter: true, flushed: false)
        #expect(closing)
        #expect(then == "wait")
        #expect(d.state == "closingAfterAnswer")
        #expect(!d.machine.wantsInput)
        d.now = 30
        #expect(describe(d.machine.flushed(now: 30)) == "shutdown output")
        #expect(d.state == "lingering")
        #expect(d.machine.deadline == 30 + Lingering.maxMilliseconds)
        #expect(d.machine.wantsInput)
        // What the client still sends is dropped, up to the bound.
        #expect(d.read("more") == "wait")
        let big = String(repeating: "x", count: Lingering.maxBytes)
        #expect(d.read(big) == "over the lingering bound")
        #expect(d.at(30 + Lingering.maxMilliseconds) == "close")
    }

    // MARK: Bodies

    @Test("a body that came with its head is handed over whole when the route wants it")
    func bodyWithHead() {
        var d = Driver()
        #expect(d.read(post("{\"a\":1}")) == "request POST /dsbridge/call body 7")
        #expect(d.routed(wantsBody: true) == "body {\"a\":1}")
        #expect(d.state == "answering")
        #expect(d.answer().then == "wait")
        #expect(d.state == "awaitingHead")
    }

    @Test("a body in pieces: read up to its end (no further), within bodyMs of its head")
    func bodyInPieces() {
        var d = Driver()
        d.now = 50
        #expect(d.read(post("0123", length: 10)) == "request POST /dsbridge/call body 10")
        #expect(d.routed(wantsBody: true) == "wait")
        #expect(d.state == "readingBody 6")
        #expect(d.machine.deadline == 3_050)
        #expect(d.machine.readWindow(scratch: 1_000) == 6)
        #expect(d.read("456") == "wait")
        #expect(d.read("789") == "body 0123456789")
        #expect(d.machine.deadline == .max)
    }

    @Test("Expect: 100-continue is answered only when the route wants a body that has not come")
    func expectContinue() {
        var wanted = Driver()
        #expect(wanted.read(post("", length: 5, extra: "Expect: 100-continue\r\n")).hasPrefix("request"))
        #expect(wanted.routed(wantsBody: true) == "write HTTP/1.1 100 Continue")
        var came = Driver()
        #expect(came.read(post("12345", extra: "Expect: 100-continue\r\n")).hasPrefix("request"))
        #expect(came.routed(wantsBody: true) == "body 12345")
        var refused = Driver()
        #expect(refused.read(post("", length: 5, extra: "Expect: 100-continue\r\n")).hasPrefix("request"))
        _ = refused.answer(closeAfter: true)  // 413 up front, before routed
        #expect(refused.routed(wantsBody: true) == "wait")
        var noExpect = Driver()
        #expect(noExpect.read(post("", length: 5)).hasPrefix("request"))
        #expect(noExpect.routed(wantsBody: true) == "wait")
    }

    @Test("a body over the route's limit is not kept: handed over as too large once complete")
    func bodyOverLimit() {
        var d = Driver()
        #expect(d.read(post("0123456789")).hasPrefix("request"))
        #expect(d.routed(wantsBody: true, bodyLimit: 9) == "body too large")
        var exact = Driver()
        #expect(exact.read(post("0123456789")).hasPrefix("request"))
        #expect(exact.routed(wantsBody: true, bodyLimit: 10) == "body 0123456789")
    }

    @Test("a body not complete at its deadline gets 408 when nothing was answered; else the connection just closes")
    func bodyDeadline() {
        var waiting = Driver()
        #expect(waiting.read(post("ab", length: 10)).hasPrefix("request"))
        #expect(waiting.routed(wantsBody: true) == "wait")
        #expect(waiting.at(2_999) == "wait")
        #expect(waiting.at(3_000) == "body timed out")
        #expect(waiting.answer(closeAfter: true).then == "shutdown output")
        // Answered early (a 401 that keeps the connection): the rest of the body is read and
        // dropped within the same time, then the connection is closed if it did not come.
        var answered = Driver()
        #expect(answered.read(post("ab", length: 10)).hasPrefix("request"))
        #expect(answered.answer().then == "wait")
        #expect(answered.routed(wantsBody: true) == "wait")
        #expect(answered.next() == "wait")
        #expect(answered.state == "readingBody 8 answered")
        #expect(answered.at(3_000) == "close")
    }

    @Test("after an early answer the rest of the body is dropped and the next request is served")
    func earlyAnswerThenNext() {
        var d = Driver()
        #expect(d.read(post("ab", length: 6)).hasPrefix("request"))
        #expect(d.answer().then == "wait")
        #expect(d.read("cdef" + get) == "request GET /a")
        #expect(d.machine.completedRequests == 1)
    }

    @Test("an early answer that closes, to a client still sending a large body: the body is dropped while the answer lingers")
    func earlyClosingAnswer() {
        var d = Driver()
        #expect(d.read(post("xxxx", length: 1_000_000)).hasPrefix("request"))
        let (closing, then) = d.answer(closeAfter: true)  // 413 up front (Content-Length over the limit)
        #expect(closing)
        #expect(then == "shutdown output")
        #expect(d.routed(wantsBody: true) == "wait")
        #expect(d.read(String(repeating: "x", count: 64_000)) == "wait")
        #expect(d.state == "lingering")
    }

    @Test("a body late behind a request served on the same connection gets 408, bodyMs after its own head")
    func bodyTimeoutBehindServedRequest() {
        var d = Driver()
        #expect(d.read(get) == "request GET /a")
        #expect(d.routed() == "wait")
        #expect(d.answer().then == "wait")
        d.now = 5_000
        #expect(d.read(post("ab", length: 9)).hasPrefix("request POST"))
        #expect(d.routed(wantsBody: true) == "wait")
        #expect(d.at(7_999) == "wait")
        #expect(d.at(8_000) == "body timed out")
    }

    // MARK: Upgrade, end of input

    @Test("an upgrade hands the connection over with the bytes sent behind the head")
    func upgrade() {
        var d = Driver(maxHeaderBytes: 400)
        let head =
            "GET /dsbridge HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\n\r\n"
        #expect(d.read(bytes: Array(head.utf8) + [0x81, 0x80]) == "request GET /dsbridge")
        #expect(d.machine.upgraded() == [0x81, 0x80])
        #expect(d.state == "upgraded")
        #expect(!d.machine.wantsInput)
        #expect(d.machine.deadline == .max)
        #expect(d.next() == "wait")
    }

    @Test("an upgrade pipelined behind a kept-alive request is served after that request's answer")
    func upgradeBehindRequest() {
        var d = Driver(maxHeaderBytes: 400)
        let upgrade =
            "GET /dsbridge HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\n\r\n"
        #expect(d.read(get + upgrade) == "request GET /a")
        #expect(d.routed() == "wait")
        #expect(d.next() == "wait")
        #expect(d.answer().then == "wait")
        #expect(d.next() == "request GET /dsbridge")
        #expect(d.machine.upgraded() == [])
    }

    @Test("the end of input closes, unless a whole head is waiting to be served")
    func peerEnded() {
        var idle = Driver()
        #expect(describe(idle.machine.peerEnded()) == "close")
        var partial = Driver()
        #expect(partial.read("GET /a HTTP/1.1\r\n") == "wait")
        #expect(describe(partial.machine.peerEnded()) == "close")
        var whole = Driver()
        _ = Array(get.utf8).withUnsafeBytes { whole.machine.received($0, now: 0) }
        #expect(describe(whole.machine.peerEnded()) == "wait")
        #expect(whole.next() == "request GET /a")
        #expect(describe(whole.machine.peerEnded()) == "close")
    }

    // MARK: The table

    /// A machine brought to each state.
    private static func inState(_ name: String) -> Driver {
        var d = Driver()
        switch name {
        case "awaitingHead": break
        case "awaitingHead since": _ = d.read("GET /")
        case "routing": _ = d.read(post("ab", length: 4))
        case "readingBody":
            _ = d.read(post("ab", length: 4))
            _ = d.routed(wantsBody: true)
        case "answering":
            _ = d.read(get)
            _ = d.routed()
        case "closingAfterAnswer":
            _ = d.read(get)
            _ = d.answer(closeAfter: true, flushed: false)
        case "lingering":
            _ = d.read(get)
            _ = d.answer(closeAfter: true)
        case "upgraded":
            _ = d.read(get)
            _ = d.machine.upgraded()
        case "closed": d.machine.closed()
        default: Issue.record("no state \(name)")
        }
        return d
    }

    /// Every state × event: what the machine says and where it goes. (An event a state
    /// does not take is answered `wait`, and the state stays.)
    static let table: [(state: String, event: String, says: String, goesTo: String)] = [
        ("awaitingHead", "bytes", "request GET /a", "routing"),
        ("awaitingHead", "flushed", "wait", "awaitingHead"),
        ("awaitingHead", "deadline", "close", "closed"),
        ("awaitingHead", "end", "close", "closed"),
        ("awaitingHead", "routed", "wait", "awaitingHead"),
        ("awaitingHead since", "bytes", "wait", "awaitingHead since 0"),
        ("awaitingHead since", "deadline", "close", "closed"),
        ("awaitingHead since", "end", "close", "closed"),
        ("routing", "bytes", "wait", "routing"),
        ("routing", "routed", "wait", "readingBody 2"),
        ("routing", "answer", "wait", "readingBody 4 answered"),
        ("routing", "deadline", "wait", "routing"),
        ("routing", "end", "close", "closed"),
        ("readingBody", "bytes", "body abcd", "answering"),
        ("readingBody", "answer", "wait", "readingBody 2 answered"),
        ("readingBody", "deadline", "body timed out", "readingBody 2"),
        ("readingBody", "end", "close", "closed"),
        ("readingBody", "flushed", "wait", "readingBody 2"),
        ("answering", "bytes", "wait", "answering"),
        ("answering", "answer", "wait", "awaitingHead"),
        ("answering", "deadline", "wait", "answering"),
        ("answering", "end", "close", "closed"),
        ("closingAfterAnswer", "flushed", "shutdown output", "lingering"),
        ("closingAfterAnswer", "bytes", "wait", "closingAfterAnswer"),
        ("closingAfterAnswer", "end", "close", "closed"),
        ("lingering", "bytes", "wait", "lingering"),
        ("lingering", "deadline", "close", "closed"),
        ("lingering", "end", "close", "closed"),
        ("lingering", "answer", "wait", "lingering"),
        ("upgraded", "bytes", "wait", "upgraded"),
        ("upgraded", "deadline", "wait", "upgraded"),
        ("upgraded", "answer", "wait", "upgraded"),
        ("closed", "bytes", "wait", "closed"),
        ("closed", "deadline", "wait", "closed"),
        ("closed", "flushed", "wait", "closed"),
    ]

    @Test("every state × event", arguments: Self.table.indices)
    func stateEvent(_ row: Int) {
        let (state, event, says, goesTo) = Self.table[row]
        var d = Self.inState(state)
        let said: String
        switch event {
        case "bytes": said = d.read(state.hasPrefix("awaitingHead since") ? "a" : state == "readingBody" ? "cd" : get)
        case "flushed": said = describe(d.machine.flushed(now: d.now))
        case "deadline": said = d.at(100_000)
        case "end": said = describe(d.machine.peerEnded())
        case "routed": said = d.routed(wantsBody: true)
        case "answer": said = d.answer().then
        default: said = "no event \(event)"
        }
        #expect(said == says, "\(state) × \(event)")
        #expect(d.state == goesTo, "\(state) × \(event)")
    }
}

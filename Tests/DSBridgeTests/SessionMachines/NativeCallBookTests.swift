// SPDX-License-Identifier: MIT
import Synchronization
import Testing

@testable import DSBridge

/// ``NativeCallBook`` driven directly: every state × event in a table, then the order in
/// which answers reach their handlers.
@Suite("Native-call book machine")
struct NativeCallBookTests: TransitionTable {
    /// A book in a named state: `idle` (no call); `calling` (call 1 waits for its answers);
    /// `delivering` (call 1 waits, and a worker delivers its answers: one is queued).
    static func inState(_ name: String) -> NativeCallBook {
        var m = NativeCallBook()
        if name != "idle" { _ = m.start(NativeCallReceiver(handler: { _ in }, answersInline: false)) }
        if name == "delivering" { _ = m.deliver(.progress(1), to: { _ in }, callerMayRun: false) }
        return m
    }

    /// The state in words: the calls waiting, the next `callbackId`, and whether a worker
    /// delivers answers.
    static func describe(_ m: NativeCallBook) -> String {
        "\(m.count) waiting, next \(m.nextCallbackId)\(m.deliveringAnswers ? ", delivering" : "")"
    }

    static let table: [TransitionRow] = [
        ("idle", "start", "callbackId 1", "1 waiting, next 2"),
        ("idle", "answer 1", "nobody", "0 waiting, next 1"),
        ("idle", "final answer 1", "nobody", "0 waiting, next 1"),
        ("idle", "answer off the network thread", "caller", "0 waiting, next 1"),
        ("idle", "answer on the network thread", "newWorker", "0 waiting, next 1, delivering"),
        ("idle", "worker takes", "0 answers", "0 waiting, next 1"),
        ("idle", "session ends", "fail 0", "0 waiting, next 1"),
        ("calling", "start", "callbackId 2", "2 waiting, next 3"),
        ("calling", "answer 1", "receiver", "1 waiting, next 2"),
        ("calling", "final answer 1", "receiver", "0 waiting, next 2"),
        ("calling", "final answer 9", "nobody", "1 waiting, next 2"),
        ("calling", "answer off the network thread", "caller", "1 waiting, next 2"),
        ("calling", "answer on the network thread", "newWorker", "1 waiting, next 2, delivering"),
        ("calling", "session ends", "fail 1", "0 waiting, next 2"),
        ("calling", "session moves", "-", "0 waiting, next 2"),
        ("delivering", "start", "callbackId 2", "2 waiting, next 3, delivering"),
        ("delivering", "answer off the network thread", "runningWorker", "1 waiting, next 2, delivering"),
        ("delivering", "answer on the network thread", "runningWorker", "1 waiting, next 2, delivering"),
        ("delivering", "worker takes", "1 answers", "1 waiting, next 2, delivering"),
        ("delivering", "worker takes twice", "0 answers", "1 waiting, next 2"),
        ("delivering", "session ends", "fail 1", "0 waiting, next 2, delivering"),
    ]

    @Test("every state × event", arguments: Self.table.indices)
    func stateEvent(_ row: Int) throws { try Self.check(row) }

    static func apply(_ event: String, to m: inout NativeCallBook) throws -> String {
        switch event {
        case "start": return "callbackId \(m.start(NativeCallReceiver(handler: { _ in }, answersInline: false)))"
        case "answer 1": return m.receiver(1) == nil ? "nobody" : "receiver"
        case "final answer 1": return m.finish(1) == nil ? "nobody" : "receiver"
        case "final answer 9": return m.finish(9) == nil ? "nobody" : "receiver"
        case "answer off the network thread": return "\(m.deliver(.progress(2), to: { _ in }, callerMayRun: true))"
        case "answer on the network thread": return "\(m.deliver(.progress(2), to: { _ in }, callerMayRun: false))"
        case "worker takes": return "\(m.takeAnswers().count) answers"
        case "worker takes twice":
            _ = m.takeAnswers()
            return "\(m.takeAnswers().count) answers"
        case "session ends": return "fail \(m.removeAll().count)"
        case "session moves":
            m.forgetAll()
            return "-"
        default: return "no event \(event)"
        }
    }

    @Test("answers queued behind a delivering worker reach it in the order the page gave them, in one burst")
    func answerOrder() {
        var m = NativeCallBook()
        let seen = Mutex<[NativeCallEvent]>([])
        let handler: NativeCallHandler = { event in seen.withLock { $0.append(event) } }
        #expect(m.deliver(.progress(1), to: handler, callerMayRun: false) == .newWorker)
        #expect(m.deliver(.progress(2), to: handler, callerMayRun: true) == .runningWorker, "an earlier answer waits")
        #expect(m.deliver(.completed(3), to: handler, callerMayRun: false) == .runningWorker)
        for (h, event) in m.takeAnswers() { h(event) }
        #expect(seen.withLock { $0 } == [.progress(1), .progress(2), .completed(3)])
    }

    @Test("a restored book answers the snapshot's calls and numbers on from its next callbackId")
    func restored() {
        var m = NativeCallBook(restoring: [4: { _ in }, 7: { _ in }], nextCallbackId: 8)
        #expect(m.count == 2 && m.receiver(7)?.answersInline == false)
        #expect(m.start(NativeCallReceiver(handler: { _ in }, answersInline: true)) == 8)
    }
}

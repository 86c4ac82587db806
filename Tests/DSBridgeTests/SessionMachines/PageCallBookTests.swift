// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridge

/// ``PageCallBook`` driven directly: every state × event in a table, with
/// `maxCallsPending` 2 and `maxAsyncCalls` 1.
@Suite("Page call book machine")
struct PageCallBookTests: TransitionTable {
    static let maxPending = 2
    static let maxAsync = 1

    /// A book in a named state. `fresh`: no call yet. `busy`: call 3 received, one sync
    /// call suspended, one async call running. `at the limit`: `busy` with a second sync
    /// call suspended (reads paused).
    static func inState(_ name: String) -> PageCallBook {
        var book = PageCallBook()
        if name != "fresh" {
            _ = book.accept(id: 3)
            _ = book.pendingStarted(maxPending: maxPending)
            _ = book.admitAsync(max: maxAsync)
        }
        if name == "at the limit" { _ = book.pendingStarted(maxPending: maxPending) }
        return book
    }

    /// The state in words.
    static func describe(_ book: PageCallBook) -> String {
        "last \(book.lastCall), \(book.pendingCalls) pending, \(book.runningAsync) async"
            + (book.pausesReads(maxPending: maxPending) ? ", reads paused" : "")
    }

    static let table: [TransitionRow] = [
        ("fresh", "call 2", "runs", "last 2, 0 pending, 0 async"),
        ("fresh", "call 0", "ran already", "last 0, 0 pending, 0 async"),
        ("fresh", "sync call suspends", "-", "last 0, 1 pending, 0 async"),
        ("fresh", "async call", "admitted", "last 0, 0 pending, 1 async"),
        ("busy", "call 2", "ran already", "last 3, 1 pending, 1 async"),
        ("busy", "call 3", "ran already", "last 3, 1 pending, 1 async"),
        ("busy", "call 4", "runs", "last 4, 1 pending, 1 async"),
        ("busy", "sync call suspends", "pause reads", "last 3, 2 pending, 1 async, reads paused"),
        ("busy", "sync call answers", "-", "last 3, 0 pending, 1 async"),
        ("busy", "async call", "refused", "last 3, 1 pending, 1 async"),
        ("busy", "async call ends", "-", "last 3, 1 pending, 0 async"),
        ("at the limit", "call 4", "runs", "last 4, 2 pending, 1 async, reads paused"),
        ("at the limit", "sync call suspends", "-", "last 3, 3 pending, 1 async, reads paused"),
        ("at the limit", "sync call answers", "resume reads", "last 3, 1 pending, 1 async"),
        ("at the limit", "async call ends", "-", "last 3, 2 pending, 0 async, reads paused"),
    ]

    @Test("every state × event", arguments: Self.table.indices)
    func stateEvent(_ row: Int) throws { try Self.check(row) }

    static func apply(_ event: String, to book: inout PageCallBook) throws -> String {
        switch event {
        case "call 0": return book.accept(id: 0) ? "runs" : "ran already"
        case "call 2": return book.accept(id: 2) ? "runs" : "ran already"
        case "call 3": return book.accept(id: 3) ? "runs" : "ran already"
        case "call 4": return book.accept(id: 4) ? "runs" : "ran already"
        case "sync call suspends": return book.pendingStarted(maxPending: Self.maxPending) ? "pause reads" : "-"
        case "sync call answers": return book.pendingFinished(maxPending: Self.maxPending) ? "resume reads" : "-"
        case "async call": return book.admitAsync(max: Self.maxAsync) ? "admitted" : "refused"
        case "async call ends":
            book.asyncFinished(callID: nil, counted: true)
            return "-"
        default: return "no event \(event)"
        }
    }

    @Test("the rate is the session's own limiter, made at its first counted call")
    func rate() {
        var book = PageCallBook()
        var limiter = CallRateLimiter(perSecond: 2, now: 0)
        for (count, now) in [(2, Int64(0)), (1, 0), (3, 400)] {
            #expect(book.takeTokens(count, perSecond: 2, now: now) == limiter.take(count, now: now))
        }
    }
}

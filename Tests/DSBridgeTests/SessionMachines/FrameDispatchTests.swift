// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridge

/// ``FrameDispatch`` driven directly, with a clock and a call rate of the test's own: every
/// plan × message in a table, then a frame of calls across the network thread's budget.
@Suite("Frame dispatch machine")
struct FrameDispatchTests: TransitionTable {
    /// A plan in a named state. `worker`: a frame on a worker, single node. `network`: on the
    /// network thread, before any call. `network, ran`: on the network thread after a call
    /// ran there at time 0. `after rate`: the calls were counted (after a rate wait).
    /// `cluster`: single-node rules plus the journal. `cluster, checked`: the journal's gate
    /// passed. `cluster, authorized`: dispatched again after a takeover.
    static func inState(_ name: String) -> FrameDispatch {
        switch name {
        case "network": return FrameDispatch(onNetworkThread: true, clustered: false, budgetNanoseconds: 1_000)
        case "network, ran":
            var plan = FrameDispatch(onNetworkThread: true, clustered: false, budgetNanoseconds: 1_000)
            _ = plan.call(hasSession: true, now: { 0 }, rateWait: { 0 })
            return plan
        case "after rate": return FrameDispatch(onNetworkThread: false, clustered: false, checksRate: false)
        case "cluster": return FrameDispatch(onNetworkThread: false, clustered: true)
        case "cluster, checked": return FrameDispatch(onNetworkThread: false, clustered: true, journalChecked: true)
        case "cluster, authorized": return FrameDispatch(onNetworkThread: false, clustered: true, authorized: true)
        default: return FrameDispatch(onNetworkThread: false, clustered: false)
        }
    }

    /// What the plan still checks, in words.
    static func describe(_ plan: FrameDispatch) -> String {
        var words: [String] = []
        if plan.checksRate { words.append("rate") }
        if plan.clustered, !plan.journalChecked { words.append("journal") }
        if plan.ranInline { words.append("budget") }
        return words.isEmpty ? "nothing to check" : "checks " + words.joined(separator: ", ")
    }

    static func describe(_ decision: FrameDispatch.CallDecision) -> String {
        switch decision {
        case .inline: "inline"
        case .handOff: "handOff"
        case .waitRate(let ms): "waitRate \(ms)"
        case .waitJournal: "waitJournal"
        }
    }

    static let table: [TransitionRow] = [
        ("worker", "call", "inline", "nothing to check"),
        ("worker", "call over the rate", "waitRate 25", "nothing to check"),
        ("worker", "call, no session", "inline", "checks rate"),
        ("worker", "hello", "attach", "checks rate"),
        ("worker", "hello, token held elsewhere", "attach", "checks rate"),
        ("network", "call", "inline", "checks budget"),
        ("network", "call over the rate", "waitRate 25", "nothing to check"),
        ("network", "call past the budget", "inline", "checks budget"),
        ("network, ran", "call", "inline", "checks budget"),
        ("network, ran", "call past the budget", "handOff", "checks budget"),
        ("network, ran", "call past the budget, no session", "inline", "checks budget"),
        ("after rate", "call", "inline", "nothing to check"),
        ("after rate", "call over the rate", "inline", "nothing to check"),
        ("cluster", "call", "waitJournal", "nothing to check"),
        ("cluster", "call over the rate", "waitRate 25", "checks journal"),
        ("cluster", "call, no session", "inline", "checks rate, journal"),
        ("cluster", "hello", "attach", "checks rate, journal"),
        ("cluster", "hello, token held elsewhere", "takeOver", "checks rate, journal"),
        ("cluster, checked", "call", "inline", "nothing to check"),
        ("cluster, authorized", "hello, token held elsewhere", "attach", "checks rate, journal"),
    ]

    @Test("every plan × message", arguments: Self.table.indices)
    func stateEvent(_ row: Int) throws { try Self.check(row) }

    static func apply(_ event: String, to plan: inout FrameDispatch) throws -> String {
        switch event {
        case "call": return Self.describe(plan.call(hasSession: true, now: { 500 }, rateWait: { 0 }))
        case "call over the rate": return Self.describe(plan.call(hasSession: true, now: { 500 }, rateWait: { 25 }))
        case "call, no session": return Self.describe(plan.call(hasSession: false, now: { 500 }, rateWait: { 25 }))
        case "call past the budget": return Self.describe(plan.call(hasSession: true, now: { 1_001 }, rateWait: { 0 }))
        case "call past the budget, no session": return Self.describe(plan.call(hasSession: false, now: { 1_001 }, rateWait: { 0 }))
        case "hello": return "\(plan.hello(resuming: "t", isHeldHere: { _ in true }))"
        case "hello, token held elsewhere": return "\(plan.hello(resuming: "t", isHeldHere: { _ in false }))"
        default: return "no event \(event)"
        }
    }

    @Test("on a worker the clock is never read; the rate is counted once per frame, for the calls left in it")
    func clockAndRateReads() {
        var plan = FrameDispatch(onNetworkThread: false, clustered: false)
        var clockReads = 0
        var rateCounts = 0
        let clock: () -> UInt64 = {
            clockReads += 1
            return 0
        }
        let rate: () -> Int = {
            rateCounts += 1
            return 0
        }
        for _ in 0..<3 { _ = plan.call(hasSession: true, now: clock, rateWait: rate) }
        #expect(clockReads == 0 && rateCounts == 1)
    }

    @Test("on the network thread the budget runs from the first call: calls within it run, the first past it hands off")
    func budget() {
        var plan = FrameDispatch(onNetworkThread: true, clustered: false, budgetNanoseconds: 1_000)
        let times: [UInt64] = [10, 400, 1_010, 1_011]
        let decisions = times.map { t in Self.describe(plan.call(hasSession: true, now: { t }, rateWait: { 0 })) }
        #expect(decisions == ["inline", "inline", "inline", "handOff"], "the budget is 1,000 ns from time 10")
    }
}

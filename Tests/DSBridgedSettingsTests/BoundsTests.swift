// SPDX-License-Identifier: MIT
import DSBridgedSettings
import Testing

@Suite("Every number has an exact range, checked whichever source gives it")
struct BoundsTests {
    /// The rule of each numeric setting, written out so a change to the table is deliberate.
    static let rules: [(SettingKey, ClosedRange<Int>)] = [
        (.port, 0...65535), (.adminPort, 0...65535),
        (.heartbeatMs, 1...86_400_000), (.graceMs, 1...86_400_000), (.helloTimeoutMs, 1...86_400_000),
        (.afterTimeoutMs, 1...86_400_000), (.bodyTimeoutMs, 1...86_400_000), (.demoTickMs, 1...86_400_000),
        (.drainMs, 0...86_400_000),
        (.maxMessageBytes, 1...1_073_741_824), (.maxDepth, 1...1_000),
        (.maxCallsPerSecond, 0...10_000_000), (.maxCallsPending, 1...10_000_000), (.maxAsyncCalls, 1...10_000_000),
        (.maxHeaderBytes, 1024...65535),
        (.maxSessions, 1...100_000_000), (.maxSessionsPerAddress, 1...100_000_000), (.replayMaxMessages, 1...100_000_000),
        (.replayMaxBytes, 1...68_719_476_736), (.memoryBudget, 1...1_125_899_906_842_624),
    ]

    @Test("every numeric setting of the table has a written-out rule here")
    func everyNumberIsListed() {
        let numeric = Setting.all.filter { if case .integer = $0.kind { true } else { false } }.map(\.key)
        #expect(Set(numeric) == Set(Self.rules.map(\.0)))
    }

    @Test("the smallest and largest values are accepted", arguments: rules)
    func edgesAccepted(key: SettingKey, range: ClosedRange<Int>) throws {
        for value in [range.lowerBound, range.upperBound] {
            let s = try Resolving.resolve([key.flag, "\(value)"])
            #expect(Setting.all.first { $0.key == key }?.shown(in: s).hasPrefix("\(value)") == true)
        }
    }

    @Test("one below the smallest and one above the largest are refused, naming the flag and the rule", arguments: rules)
    func outsideRefused(key: SettingKey, range: ClosedRange<Int>) {
        let low = Resolving.refusal(["\(key.flag)=\(range.lowerBound - 1)"])
        let high = Resolving.refusal([key.flag, "\(range.upperBound + 1)"])
        switch (key, range.lowerBound) {
        case (.port, _), (.adminPort, _), (.maxHeaderBytes, _):
            #expect(low == "\(key.flag) must be from \(range.lowerBound) to \(range.upperBound), got \(range.lowerBound - 1)")
            #expect(high == "\(key.flag) must be from \(range.lowerBound) to \(range.upperBound), got \(range.upperBound + 1)")
        case (_, 0):
            #expect(low == "\(key.flag) must be 0 or more, got -1")
            #expect(high?.hasPrefix("\(key.flag) must be at most \(range.upperBound) (") == true, "\(high ?? "accepted")")
        default:
            #expect(low == "\(key.flag) must be a positive integer, got 0")
            #expect(high?.hasPrefix("\(key.flag) must be at most \(range.upperBound) (") == true, "\(high ?? "accepted")")
        }
    }

    @Test("a bound says why it is there")
    func reasons() {
        #expect(Resolving.refusal(["--heartbeat-ms", "86400001"]) == "--heartbeat-ms must be at most 86400000 (one day), got 86400001")
        #expect(Resolving.refusal(["--max-depth", "100000"]) == "--max-depth must be at most 1000 (deeper JSON would exhaust a thread's stack), got 100000")
        #expect(
            Resolving.refusal(["--max-message-bytes", "9223372036854775807"])
                == "--max-message-bytes must be at most 1073741824 (1 GiB), got 9223372036854775807")
    }

    @Test("values from the environment and the file are checked too, and named by their flag")
    func otherSources() {
        #expect(Resolving.refusal(environment: ["DSBRIDGED_MAX_DEPTH": "0"]) == "--max-depth must be a positive integer, got 0")
        #expect(Resolving.refusal(file: #"{"port": 70000}"#) == "--port must be from 0 to 65535, got 70000")
    }
}

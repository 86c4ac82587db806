// SPDX-License-Identifier: MIT
import DSBridgeServer
import DSBridgedSettings
import Testing

@Suite("An unset --max-sessions is what the descriptor limit holds, so a default start never warns")
struct MaxSessionsDefaultTests {
    @Test("the hard limit less the reserve and the room for HTTP requests")
    func leavesTheReserve() {
        let derived = MaxSessionsDefault(hardDescriptorLimit: 20_000)
        #expect(derived.value == 20_000 - DescriptorLimit.reserve - DescriptorLimit.httpAllowance)
        #expect(derived.value == 18_848)
        #expect(derived.origin == "default: what the descriptor hard limit 20000 holds, 1152 kept for the admin listener and HTTP")
    }

    @Test("at most 100,000, however high the hard limit")
    func ceiling() {
        #expect(MaxSessionsDefault(hardDescriptorLimit: 1_048_576).value == 100_000)
        #expect(MaxSessionsDefault(hardDescriptorLimit: 101_152).value == 100_000)
        #expect(MaxSessionsDefault(hardDescriptorLimit: 101_151).value == 99_999)
        #expect(
            MaxSessionsDefault(hardDescriptorLimit: 1_048_576).origin
                == "default: the most a default allows; the descriptor hard limit 1048576 holds more")
    }

    @Test("a hard limit too small for the whole HTTP room splits what the reserve leaves, one session at least")
    func smallLimits() {
        #expect(MaxSessionsDefault(hardDescriptorLimit: 1_024).value == 448)
        #expect(MaxSessionsDefault(hardDescriptorLimit: 512).value == 192)
        #expect(MaxSessionsDefault(hardDescriptorLimit: 130).value == 1)
        #expect(MaxSessionsDefault(hardDescriptorLimit: 0).value == 1)
    }

    @Test(
        "the derived value fits: the soft limit planned for it draws no warning",
        arguments: [
            130, 131, 200, 512, 1_024, 1_151, 1_152, 1_153, 2_000, 2_305, 4_096, 20_000, 101_151, 101_152, 262_144, 1_048_576,
        ])
    func neverWarns(hard: Int) {
        let maxSessions = MaxSessionsDefault(hardDescriptorLimit: hard).value
        for currentSoft in [1_024, hard] {
            let plan = DescriptorLimit(currentSoft: currentSoft, hard: hard, maxSessions: maxSessions)
            #expect(plan.warning(maxSessions: maxSessions) == nil, "hard \(hard): \(maxSessions) sessions, room for \(plan.sessionCapacity)")
        }
    }

    @Test("an explicit value above what fits still warns, as before")
    func explicitStillWarns() {
        let plan = DescriptorLimit(currentSoft: 1_024, hard: 20_000, maxSessions: 100_000)
        #expect(plan.warning(maxSessions: 100_000)?.hasPrefix("warning: the descriptor limit") == true)
    }

    @Test("resolved: unset takes the derived value and --check-config says where it came from; set is as given")
    func resolved() throws {
        let derived = try Resolving.resolve(hardLimit: 20_000)
        #expect(derived.bridge.maxSessions == 18_848)
        let lines = SettingsSummary.lines(of: derived).map { $0.split(separator: " ").joined(separator: " ") }
        #expect(
            lines.contains("max-sessions 18848 (default: what the descriptor hard limit 20000 holds, 1152 kept for the admin listener and HTTP)"),
            "\(lines)")
        let flag = try Resolving.resolve(["--max-sessions", "500"], hardLimit: 20_000)
        #expect(flag.bridge.maxSessions == 500)
        #expect(SettingsSummary.lines(of: flag).map { $0.split(separator: " ").joined(separator: " ") }.contains("max-sessions 500 (set)"))
        let environment = try Resolving.resolve(environment: ["DSBRIDGED_MAX_SESSIONS": "100000"], hardLimit: 20_000)
        #expect(environment.bridge.maxSessions == 100_000, "an explicit value is kept even when it does not fit (the start warns)")
    }
}

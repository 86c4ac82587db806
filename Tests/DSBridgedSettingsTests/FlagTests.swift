// SPDX-License-Identifier: MIT
import ArgumentParser
import DSBridgedSettings
import Testing

@Suite("Every setting of the table is a flag, named and described by the table")
struct FlagTests {
    /// A valid value of each kind, distinct per setting so a flag mapped to the wrong
    /// setting shows up.
    static func sample(for setting: Setting, index: Int) -> (arguments: [String], value: SettingValue) {
        switch setting.kind {
        case .integer(let bounds):
            let v = bounds.minimum + index
            return ([setting.key.flag, "\(v)"], .integer(v))
        case .text, .choice:
            return ([setting.key.flag, "v\(index)"], .text("v\(index)"))
        case .toggle:
            return ([setting.key.flag], .toggle(true))
        case .list:
            return ([setting.key.flag, "a\(index)", setting.key.flag, "b\(index)"], .list(["a\(index)", "b\(index)"]))
        }
    }

    @Test("each row's flag parses to that row's value, and to no other")
    func everyRowHasItsFlag() throws {
        for (index, setting) in Setting.all.enumerated() {
            let sample = Self.sample(for: setting, index: index)
            let flags = try SettingFlags.parse(sample.arguments)
            #expect(flags.values == [setting.key: sample.value], "\(sample.arguments)")
        }
    }

    @Test("no flag given means no value: the environment and the file still apply")
    func nothingGiven() throws {
        let flags = try SettingFlags.parse([])
        #expect(flags.values.isEmpty)
        #expect(flags.config == nil)
    }

    @Test("--help shows each setting's flag, help text, default and environment variable")
    func help() {
        let help = SettingFlags.helpMessage(columns: 10_000)
        for setting in Setting.all {
            #expect(help.contains(setting.key.flag))
            #expect(help.contains(setting.helpText), "\(setting.key)")
        }
        #expect(help.contains("--config"))
        #expect(
            Setting.all.first { $0.key == .maxDepth }?.helpText
                == "Deepest JSON nesting accepted (close 4000 above). (default: 128; 1 to 1000 (deeper JSON would exhaust a thread's stack); env DSBRIDGED_MAX_DEPTH)"
        )
    }

    @Test("names: the flag, the config key and the environment variable come from one spelling")
    func names() {
        for key in SettingKey.allCases {
            #expect(key.flag == "--" + key.rawValue)
            #expect(key.configKey == key.rawValue)
            #expect(key.environmentVariable == "DSBRIDGED_" + key.rawValue.uppercased().replacingOccurrences(of: "-", with: "_"))
        }
        #expect(SettingKey.maxSessionsPerAddress.environmentVariable == "DSBRIDGED_MAX_SESSIONS_PER_ADDRESS")
        #expect(SettingKey.configFileVariable == "DSBRIDGED_CONFIG")
    }
}

// SPDX-License-Identifier: MIT
import DSBridgedSettings
import Foundation
import Testing

@Suite("The configuration references document every setting of the table")
struct DocumentationTests {
    /// Set to 1 (scripts/update-settings-reference.sh does) to rewrite README.md's section.
    static let updating = ProcessInfo.processInfo.environment["DSBRIDGED_UPDATE_SETTINGS_REFERENCE"] == "1"

    @Test("README.md's configuration table is the one generated from the settings table")
    func readmeIsCurrent() throws {
        let readme = try Repository.text("README.md")
        let updated = try #require(
            SettingsReference.updating(readme), "README.md lacks the lines \(SettingsReference.beginMarker) and \(SettingsReference.endMarker)")
        if Self.updating && updated != readme {
            try updated.write(to: Repository.root.appendingPathComponent("README.md"), atomically: true, encoding: .utf8)
            return
        }
        let current = updated == readme
        #expect(current, "README.md's configuration table is out of date: run scripts/update-settings-reference.sh")
    }

    @Test("the generated table has each setting's flag, environment variable and default")
    func generatedRows() {
        let rows = SettingsReference.markdown().split(separator: "\n").dropFirst(2)
        #expect(rows.count == SettingKey.allCases.count)
        for (row, setting) in zip(rows, Setting.all) {
            #expect(row.hasPrefix("| `\(setting.key.flag)` | `\(setting.key.environmentVariable)` | "), "\(row)")
            #expect(row.contains(setting.defaultDescription))
        }
        #expect(
            rows.contains(
                "| `--max-depth` | `DSBRIDGED_MAX_DEPTH` | `128` | 1 to 1000 (deeper JSON would exhaust a thread's stack) | Deepest JSON nesting accepted (close 4000 above). |"
            ))
    }

    @Test("deploy/README.md explains every config key, with its default")
    func deployGuide() throws {
        let rows = try Repository.text("deploy/README.md").split(separator: "\n").filter { $0.hasPrefix("| `") }
        for setting in Setting.all {
            let key = "`\(setting.key.configKey)`"
            // The first cell names the key, alone or with its companions (`tls-cert`, `tls-key`).
            let row = rows.first { $0.split(separator: "|").first?.contains(key) == true }
            #expect(row != nil, "deploy/README.md has no row for \(key)")
            if case .integer = setting.kind, let row, setting.key != .memoryBudget {
                #expect(row.contains("`\(setting.defaultDescription)`"), "deploy/README.md's default of \(key) is not \(setting.defaultDescription): \(row)")
            }
        }
    }
}

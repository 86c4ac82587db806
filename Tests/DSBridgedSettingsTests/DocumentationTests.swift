// SPDX-License-Identifier: MIT
import DSBridgedSettings
import Foundation
import Testing

@Suite("The configuration references document every setting of the table")
struct DocumentationTests {
    /// Set to 1 (scripts/update-settings-reference.sh does) to rewrite the configuration
    /// reference's table instead of checking it.
    static let updating = ProcessInfo.processInfo.environment["DSBRIDGED_UPDATE_SETTINGS_REFERENCE"] == "1"

    /// The document holding the generated table, between the settings-reference markers
    /// (scripts/update-settings-reference.sh names it too).
    static let reference = "docs/CONFIGURATION.md"

    @Test("docs/CONFIGURATION.md's configuration table is the one generated from the settings table")
    func referenceIsCurrent() throws {
        let document = try Repository.text(Self.reference)
        let updated = try #require(
            SettingsReference.updating(document), "\(Self.reference) lacks the lines \(SettingsReference.beginMarker) and \(SettingsReference.endMarker)")
        if Self.updating && updated != document {
            try updated.write(to: Repository.root.appendingPathComponent(Self.reference), atomically: true, encoding: .utf8)
            return
        }
        let current = updated == document
        #expect(current, "\(Self.reference)'s configuration table is out of date: run scripts/update-settings-reference.sh")
    }

    @Test("the table is generated in docs/CONFIGURATION.md only, and README.md links there")
    func readmeLinksToReference() throws {
        let readme = try Repository.text("README.md")
        #expect(!readme.contains(SettingsReference.beginMarker), "README.md still holds a generated table: it lives in \(Self.reference)")
        #expect(readme.contains("](\(Self.reference))"), "README.md does not link to \(Self.reference)")
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
            // A default derived at start (the memory budget, max-sessions) is described in words there.
            let isValue = setting.defaultDescription == setting.shown(in: DaemonSettings())
            if case .integer = setting.kind, let row, isValue {
                #expect(row.contains("`\(setting.defaultDescription)`"), "deploy/README.md's default of \(key) is not \(setting.defaultDescription): \(row)")
            }
        }
    }
}

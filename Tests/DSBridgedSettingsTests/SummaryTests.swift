// SPDX-License-Identifier: MIT
import DSBridgedSettings
import Testing

@Suite("--check-config's summary shows every effective setting, never a secret")
struct SummaryTests {
    @Test("one aligned line per setting, in the table's order")
    func everySetting() throws {
        let lines = SettingsSummary.lines(of: try Resolving.resolve())
        #expect(lines.map { String($0.prefix { $0 != " " }) } == SettingKey.allCases.map(\.rawValue))
        let width = lines.map { $0.prefix { $0 != " " }.count }.max() ?? 0
        #expect(lines.allSatisfy { $0.dropFirst(width + 2).first != " " }, "\(lines)")
    }

    @Test("secrets are shown as (set), never their value; defaults as the daemon uses them")
    func secrets() throws {
        let s = try Resolving.resolve(["--admin-token", "s3cret-admin", "--max-depth", "64"], environment: ["DSBRIDGED_AUTH_TOKEN": "s3cret-auth"])
        let lines = SettingsSummary.lines(of: s).map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("admin-token (set)") && lines.contains("auth-token (set)"))
        #expect(!lines.joined().contains("s3cret"))
        #expect(lines.contains("max-depth 64") && lines.contains("tls-cert (none)") && lines.contains("allowed-origin (own origin only)"))
        #expect(lines.contains("memory-budget 2147483648 (a quarter of 8589934592 bytes of physical memory)"))
        #expect(lines.contains("log-level info") && lines.contains("demo false"))
    }
}

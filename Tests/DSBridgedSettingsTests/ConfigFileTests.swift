// SPDX-License-Identifier: MIT
import DSBridgedSettings
import Foundation
import Testing

@Suite("The config file is one JSON object whose keys are the flag names")
struct ConfigFileTests {
    @Test("an unknown key is refused, naming the file and the key")
    func unknownKey() {
        let message = Resolving.refusal(file: #"{"port": 1, "prot": 1}"#)
        #expect(message?.hasPrefix("config file /") == true && message?.hasSuffix(#": unknown key "prot""#) == true, "\(message ?? "accepted")")
        #expect(throws: SettingsError(description: #"config file x.json: unknown key "max_depth""#)) {
            try ConfigFile.parse(Array(#"{"max_depth": 1}"#.utf8), path: "x.json")
        }
    }

    @Test(
        "what is not one JSON object is refused",
        arguments: [
            ("[1, 2]", "config file x.json must hold one JSON object"),
            (#"{"port": "#, "config file x.json is not JSON: "),
            ("", "config file x.json is not JSON: "),
        ])
    func notAnObject(content: String, message: String) {
        do {
            _ = try ConfigFile.parse(Array(content.utf8), path: "x.json")
            Issue.record("accepted \(content)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }

    @Test("every key of the table is a known key, and --config is not one")
    func everyKeyKnown() throws {
        let object = "{" + SettingKey.allCases.map { "\"\($0.configKey)\": null" }.joined(separator: ", ") + "}"
        #expect(try ConfigFile.parse(Array(object.utf8), path: "x.json").count == SettingKey.allCases.count)
        #expect(throws: SettingsError.self) { try ConfigFile.parse(Array(#"{"config": "a.json"}"#.utf8), path: "x.json") }
    }

    @Test("deploy/dsbridged.json, the installed example, is accepted")
    func deployExample() throws {
        let text = try Repository.text("deploy/dsbridged.json").replacingOccurrences(
            of: "\"web-root\": \"/usr/local/share/dsbridged/web\"", with: "\"web-root\": \"\(Resolving.webRoot)\"")
        let s = try Resolving.resolve(file: text)
        #expect(s.server.allowedOrigins == ["https://app.example.com"])
        #expect(s.server.trustedProxies == ["127.0.0.1"])
        #expect(s.sources.values.allSatisfy { $0 == .file || $0 == .environment })
    }
}

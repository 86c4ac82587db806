// SPDX-License-Identifier: MIT
import DSBridgedSettings
import Testing

@Suite("A value of the wrong type in the environment or the file is refused, naming where it is")
struct WrongTypeTests {
    @Test(
        "environment values that are not of the setting's type",
        arguments: [
            ("DSBRIDGED_MAX_DEPTH", "deep", "an integer"),
            ("DSBRIDGED_PORT", "80.5", "an integer"),
            ("DSBRIDGED_PORT", "99999999999999999999", "an integer"),
            ("DSBRIDGED_DEMO", "yes", "true or false"),
            ("DSBRIDGED_DEMO", "1", "true or false"),
        ])
    func environment(variable: String, text: String, expected: String) {
        #expect(Resolving.refusal(environment: [variable: text]) == "environment variable \(variable)=\(text) has the wrong type; expected \(expected)")
    }

    @Test("environment values are read as JSON when they parse, else as text")
    func environmentAsJSON() throws {
        let s = try Resolving.resolve(environment: [
            "DSBRIDGED_MAX_DEPTH": "64.0", "DSBRIDGED_DEMO": "true",
            "DSBRIDGED_HOST": "1234", "DSBRIDGED_ADMIN_HOST": #""quoted""#,
        ])
        #expect(s.bridge.maxDepth == 64, "an integral number is an integer")
        #expect(s.demo)
        #expect(s.server.host == "1234", "a number is text for a text setting")
        #expect(s.server.adminHost == "quoted", "a JSON string is its contents")
    }

    @Test(
        "config file values that are not of the setting's type",
        arguments: [
            (#"{"port": "eighty"}"#, #"config key "port" has the wrong type (a string); expected an integer"#),
            (#"{"max-depth": 1.5}"#, #"config key "max-depth" has the wrong type (a number); expected an integer"#),
            (#"{"max-depth": null}"#, #"config key "max-depth" has the wrong type (null); expected an integer"#),
            (#"{"host": 5}"#, #"config key "host" has the wrong type (an integer); expected a string"#),
            (#"{"demo": "true"}"#, #"config key "demo" has the wrong type (a string); expected true or false"#),
            (#"{"log-level": ["info"]}"#, #"config key "log-level" has the wrong type (an array); expected a string"#),
            (#"{"allowed-origin": "https://a.example"}"#, #"config key "allowed-origin" must be an array of strings"#),
            (#"{"trusted-proxy": ["127.0.0.1", 1]}"#, #"config key "trusted-proxy" must be an array of strings"#),
        ])
    func file(content: String, message: String) {
        #expect(Resolving.refusal(file: content) == message)
    }
}

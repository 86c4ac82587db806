// SPDX-License-Identifier: MIT
import DSBridgedSettings
import Logging
import Testing

@Suite("A flag beats the environment, which beats the config file, which beats the default")
struct PrecedenceTests {
    @Test("an integer setting: max-depth")
    func integer() throws {
        let file = #"{"max-depth": 30}"#
        #expect(try Resolving.resolve().bridge.maxDepth == 128)
        #expect(try Resolving.resolve(file: file).bridge.maxDepth == 30)
        #expect(try Resolving.resolve(environment: ["DSBRIDGED_MAX_DEPTH": "20"], file: file).bridge.maxDepth == 20)
        let all = try Resolving.resolve(["--max-depth", "10"], environment: ["DSBRIDGED_MAX_DEPTH": "20"], file: file)
        #expect(all.bridge.maxDepth == 10)
        #expect(all.sources[.maxDepth] == .flag)
    }

    @Test("a text setting: host")
    func text() throws {
        let file = #"{"host": "10.0.0.3"}"#
        #expect(try Resolving.resolve().server.host == "127.0.0.1")
        #expect(try Resolving.resolve(file: file).server.host == "10.0.0.3")
        #expect(try Resolving.resolve(environment: ["DSBRIDGED_HOST": "10.0.0.2"], file: file).server.host == "10.0.0.2")
        #expect(try Resolving.resolve(["--host", "10.0.0.1"], environment: ["DSBRIDGED_HOST": "10.0.0.2"], file: file).server.host == "10.0.0.1")
    }

    @Test("a list setting: the flag's values replace the environment's, which replace the file's")
    func list() throws {
        let file = #"{"allowed-origin": ["https://file.example"]}"#
        let environment = ["DSBRIDGED_ALLOWED_ORIGIN": "https://env1.example, https://env2.example"]
        #expect(try Resolving.resolve().server.allowedOrigins == [])
        #expect(try Resolving.resolve(file: file).server.allowedOrigins == ["https://file.example"])
        #expect(try Resolving.resolve(environment: environment, file: file).server.allowedOrigins == ["https://env1.example", "https://env2.example"])
        let flags = ["--allowed-origin", "https://a.example", "--allowed-origin", "https://b.example"]
        #expect(try Resolving.resolve(flags, environment: environment, file: file).server.allowedOrigins == ["https://a.example", "https://b.example"])
    }

    @Test("a toggle: --demo turns it on whatever the rest says; without it the environment, then the file")
    func toggle() throws {
        #expect(try Resolving.resolve().demo == false)
        #expect(try Resolving.resolve(file: #"{"demo": true}"#).demo == true)
        #expect(try Resolving.resolve(environment: ["DSBRIDGED_DEMO": "false"], file: #"{"demo": true}"#).demo == false)
        #expect(try Resolving.resolve(["--demo"], environment: ["DSBRIDGED_DEMO": "false"]).demo == true)
    }

    @Test("a choice: log-level")
    func choice() throws {
        #expect(try Resolving.resolve().logLevel == .info)
        #expect(try Resolving.resolve(file: #"{"log-level": "error"}"#).logLevel == .error)
        #expect(try Resolving.resolve(environment: ["DSBRIDGED_LOG_LEVEL": "debug"], file: #"{"log-level": "error"}"#).logLevel == .debug)
        #expect(try Resolving.resolve(["--log-level", "trace"], environment: ["DSBRIDGED_LOG_LEVEL": "debug"]).logLevel == .trace)
    }

    @Test("each setting is taken from its own highest source: the layers merge per key")
    func perKey() throws {
        let s = try Resolving.resolve(["--port", "1"], environment: ["DSBRIDGED_GRACE_MS": "2"], file: #"{"port": 9, "grace-ms": 9, "drain-ms": 3}"#)
        #expect(s.server.port == 1 && s.bridge.graceMs == 2 && s.server.drainMs == 3 && s.bridge.heartbeatMs == 20_000)
        #expect(s.sources[.port] == .flag && s.sources[.graceMs] == .environment && s.sources[.drainMs] == .file)
        #expect(s.sources[.heartbeatMs] == nil, "a default has no source")
    }

    @Test("--config names the file; DSBRIDGED_CONFIG does when --config is absent")
    func configFileLocation() throws {
        let s = try Resolving.resolve(file: #"{"max-sessions": 7}"#)
        #expect(s.bridge.maxSessions == 7)
        let missing = Resolving.refusal(environment: ["DSBRIDGED_CONFIG": "/nonexistent/dsbridged.json"])
        #expect(missing == "cannot read config file /nonexistent/dsbridged.json")
        // --config wins over DSBRIDGED_CONFIG: the missing file named by the variable is not read.
        let both = try Resolving.resolve(environment: ["DSBRIDGED_CONFIG": "/nonexistent/dsbridged.json"], file: #"{"max-sessions": 8}"#)
        #expect(both.bridge.maxSessions == 8)
    }

    @Test("an unset memory budget is a quarter of the memory limit, and says so; a set one says set")
    func memoryBudgetDefault() throws {
        let s = try Resolving.resolve()
        #expect(s.bridge.memoryBudget == 2 << 30)
        #expect(s.memoryBudgetOrigin == "a quarter of 8589934592 bytes of physical memory")
        let set = try Resolving.resolve(environment: ["DSBRIDGED_MEMORY_BUDGET": "1000"])
        #expect(set.bridge.memoryBudget == 1000)
        #expect(set.memoryBudgetOrigin == "set")
    }
}

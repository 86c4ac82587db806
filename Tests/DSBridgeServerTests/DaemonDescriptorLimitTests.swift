// SPDX-License-Identifier: MIT
import Foundation
import Testing

/// The real `dsbridged` under a hard descriptor limit of 4,096 (`prlimit`), below what the
/// 100,000 sessions of the old fixed default needed: `--max-sessions` unset is derived from
/// the limit and nothing warns; a value above what fits still warns (PROTOCOL.md 2.6).
@Suite("dsbridged under a low descriptor limit")
struct DaemonDescriptorLimitTests {
    static let hardLimit = 4_096
    /// 4,096 less the reserve (128) and the room for HTTP (1,024).
    static let derived = 2_944

    /// Runs `dsbridged arguments` under `prlimit --nofile=H:H` (which execs it).
    private func launch(_ arguments: [String]) throws -> (process: Process, out: Pipe, err: Pipe) {
        let prlimit = URL(fileURLWithPath: "/usr/bin/prlimit")
        return try DaemonLauncher.launch(
            prlimit, ["--nofile=\(Self.hardLimit):\(Self.hardLimit)", "--", DaemonProcessTests.binary.path] + arguments)
    }

    private func waitForExit(_ process: Process, seconds: Double = 15) {
        DaemonLauncher.waitForExit(process, seconds: seconds)
    }

    private func text(_ pipe: Pipe) -> String {
        String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    private func warnings(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.hasPrefix("warning:") }
    }

    @Test("--check-config derives max-sessions from the hard limit, says so, and warns of nothing")
    func checkConfigDerives() throws {
        let (process, out, err) = try launch(["--check-config", "--web-root", DaemonProcessTests.webRoot])
        waitForExit(process)
        #expect(process.terminationStatus == 0)
        let lines = text(out).split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(
            lines.contains(
                "max-sessions \(Self.derived) (default: what the descriptor hard limit \(Self.hardLimit) holds, 1152 kept for the admin listener and HTTP)"),
            "\(lines)")
        #expect(warnings(text(err)).isEmpty)
    }

    @Test("--check-config with a --max-sessions the limit cannot hold prints the start's warning")
    func checkConfigWarnsOfExplicitValue() throws {
        let (process, out, err) = try launch(["--check-config", "--max-sessions", "100000", "--web-root", DaemonProcessTests.webRoot])
        waitForExit(process)
        #expect(process.terminationStatus == 0)
        #expect(text(out).contains("100000 (set)"))
        let warned = warnings(text(err))
        #expect(warned.count == 1 && warned.first?.contains("fewer than --max-sessions 100000") == true, "\(warned)")
    }

    @Test("a start without --max-sessions prints no warning and logs the derived value")
    func startWithoutWarning() throws {
        let (process, out, err) = try launch([
            "--port", "0", "--admin-port", "0", "--host", "127.0.0.1", "--web-root", DaemonProcessTests.webRoot,
        ])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var bytes: [UInt8] = []
        while let b = try? out.fileHandleForReading.read(upToCount: 1), let c = b.first, c != 10 { bytes.append(c) }
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("listening port="))
        kill(process.processIdentifier, SIGTERM)
        waitForExit(process)
        let log = text(err)
        #expect(warnings(log).isEmpty, "\(log)")
        #expect(log.contains("max sessions \(Self.derived) (default: what the descriptor hard limit \(Self.hardLimit) holds"), "\(log)")
    }
}

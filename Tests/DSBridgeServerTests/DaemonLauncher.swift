// SPDX-License-Identifier: MIT
import Foundation
import Testing

/// Starts the real `dsbridged` (or a program that execs it, such as `prlimit`) for the
/// daemon process tests, with stdout and stderr on pipes, and waits for it to exit.
enum DaemonLauncher {
    /// Runs `executable arguments` in the repository, with `environment` added to this
    /// process' environment. - Returns: the process and its stdout and stderr pipes.
    static func launch(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> (Process, Pipe, Pipe) {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        p.currentDirectoryURL = DaemonProcessTests.repositoryRoot
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        return (p, out, err)
    }

    /// Waits for the process to exit, killing it (and failing) after `seconds`.
    static func waitForExit(_ process: Process, seconds: Double = 15) {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            Issue.record("dsbridged did not exit within \(seconds) s")
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

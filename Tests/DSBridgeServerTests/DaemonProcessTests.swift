// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Synchronization
import Testing

/// Runs the real `dsbridged` binary, as an operator or a test tool would.
@Suite("The dsbridged executable")
struct DaemonProcessTests {
    /// `.build/<config>/dsbridged`, next to the test bundle.
    static var binary: URL {
        Bundle.main.bundleURL.appendingPathComponent("dsbridged")
    }

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// An empty web root, so the tests do not depend on `web/`.
    static let webRoot: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dsbridged-daemon-web-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.path
    }()

    private func launch(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, Pipe, Pipe) {
        try DaemonLauncher.launch(Self.binary, arguments, environment: environment)
    }

    private func waitForExit(_ process: Process, seconds: Double = 15) {
        DaemonLauncher.waitForExit(process, seconds: seconds)
    }

    private func firstLine(_ pipe: Pipe) -> String {
        var bytes: [UInt8] = []
        while let b = try? pipe.fileHandleForReading.read(upToCount: 1), let c = b.first, c != 10 { bytes.append(c) }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("prints its ports first, serves the demo, and on SIGTERM closes sockets with 1001 and exits 0")
    func lifecycle() throws {
        let (process, out, _) = try launch([
            "--port", "0", "--admin-port", "0", "--admin-token", "t", "--web-root", Self.webRoot, "--demo", "--demo-tick-ms", "10",
        ])
        defer { if process.isRunning { process.terminate() } }
        let line = firstLine(out)
        let parts = line.split(separator: " ")
        #expect(parts.first == "listening")
        let port = try #require(parts.dropFirst().first.flatMap { Int($0.dropFirst("port=".count)) })
        let adminPort = try #require(parts.dropFirst(2).first.flatMap { Int($0.dropFirst("admin-port=".count)) })
        #expect(try TestHTTP.request(port: adminPort, path: "/healthz").status == 200)
        let ws = try TestWebSocket(port: port)
        try ws.hello()
        try ws.send(callMessage(1, "testSyn", "Hello"))
        #expect(try ws.nextMessage()["data"] == "Hello[ syn call]")
        kill(process.processIdentifier, SIGTERM)
        #expect(try ws.closeCode() == 1001)
        waitForExit(process)
        #expect(process.terminationStatus == 0)
    }

    @Test("--demo calls into no page unasked: dsinit releases nothing, seqs count only the page's own calls")
    func demoCallsNothingUnasked() throws {
        let (process, out, _) = try launch(["--port", "0", "--admin-port", "0", "--web-root", Self.webRoot, "--demo"])
        defer { if process.isRunning { process.terminate() } }
        let parts = firstLine(out).split(separator: " ")
        let port = try #require(parts.dropFirst().first.flatMap { Int($0.dropFirst("port=".count)) })
        let ws = try TestWebSocket(port: port)
        try ws.hello()
        try ws.send(.array([callMessage(1, "_dsb.dsinit", nil), callMessage(2, "testSyn", "Hello")]))
        #expect(try ws.nextMessage() == ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ""])
        #expect(try ws.nextMessage() == ["t": "ret", "seq": 2, "id": 2, "code": 0, "data": "Hello[ syn call]"])
    }

    @Test("a log line that cannot be written (stderr is /dev/full) does not stop the daemon")
    func unwritableLog() throws {
        let p = Process()
        p.executableURL = Self.binary
        p.arguments = ["--host", "0.0.0.0", "--port", "0", "--admin-port", "0", "--web-root", Self.webRoot, "--demo", "--log-level", "debug"]
        p.environment = ProcessInfo.processInfo.environment.merging(["DSBRIDGED_LOG_FORMAT": "journal"]) { $1 }
        let out = Pipe()
        p.standardOutput = out
        p.standardError = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        let parts = firstLine(out).split(separator: " ")
        let port = try #require(parts.dropFirst().first.flatMap { Int($0.dropFirst("port=".count)) })
        let adminPort = try #require(parts.dropFirst(2).first.flatMap { Int($0.dropFirst("admin-port=".count)) })
        let ws = try TestWebSocket(port: port)
        try ws.hello()
        try ws.send(callMessage(1, "testSyn", "Hello"))
        #expect(try ws.nextMessage()["data"] == "Hello[ syn call]")
        #expect(try TestHTTP.request(port: adminPort, path: "/healthz").status == 200)
        kill(p.processIdentifier, SIGTERM)
        waitForExit(p)
        #expect(p.terminationStatus == 0)
    }

    @Test("drain: an in-flight slow call is answered, then the socket gets 1001, /healthz says 503, exit 0")
    func drain() throws {
        let (process, out, _) = try launch(["--port", "0", "--admin-port", "0", "--web-root", Self.webRoot, "--demo", "--drain-ms", "5000"])
        defer { if process.isRunning { process.terminate() } }
        let parts = firstLine(out).split(separator: " ")
        let port = try #require(parts.dropFirst().first.flatMap { Int($0.dropFirst("port=".count)) })
        let adminPort = try #require(parts.dropFirst(2).first.flatMap { Int($0.dropFirst("admin-port=".count)) })
        let busy = try TestWebSocket(port: port)
        try busy.hello()
        let idle = try TestWebSocket(port: port)
        try idle.hello()
        try busy.send(callMessage(1, "test.sleepSyn", 800))
        usleep(100_000)
        let started = Date()
        kill(process.processIdentifier, SIGTERM)
        #expect(try idle.closeCode() == 1001)
        #expect(try TestHTTP.request(port: adminPort, path: "/healthz").status == 503)
        #expect(throws: (any Error).self) { try TestWebSocket(port: port).hello() }
        #expect(try busy.nextMessage() == ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": 800])
        #expect(try busy.closeCode() == 1001)
        waitForExit(process)
        #expect(process.terminationStatus == 0)
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test("SIGTERM under load: busy and held sockets get 1001, a call that outlives drainMs is cut, exit 0 in time")
    func drainUnderLoad() throws {
        let (process, out, _) = try launch(["--port", "0", "--admin-port", "0", "--web-root", Self.webRoot, "--demo", "--drain-ms", "1500"])
        defer { if process.isRunning { process.terminate() } }
        let parts = firstLine(out).split(separator: " ")
        let port = try #require(parts.dropFirst().first.flatMap { Int($0.dropFirst("port=".count)) })
        var held: [TestWebSocket] = []
        for _ in 0..<300 {
            let ws = try TestWebSocket(port: port)
            try ws.hello()
            held.append(ws)
        }
        let stuck = try TestWebSocket(port: port)
        try stuck.hello()
        try stuck.send(callMessage(1, "test.sleepSyn", 10_000))
        // Four pages calling as fast as they are answered, until the server closes them.
        let closes = Mutex<[Int]>([])
        let answered = Atomic<Int>(0)
        let group = DispatchGroup()
        for _ in 0..<4 {
            let page = OwnedByOneThread(try TestWebSocket(port: port))
            try page.value.hello()
            DispatchQueue.global().async(group: group) {
                let ws = page.value
                var id: Int64 = 1
                while true {
                    do {
                        try ws.send(callMessage(id, "echo.syn", "x"))
                        _ = try ws.nextMessage()
                        answered.add(1, ordering: .relaxed)
                        id += 1
                    } catch let closed as TestWebSocketClosed {
                        closes.withLock { $0.append(closed.code) }
                        return
                    } catch {
                        closes.withLock { $0.append(-1) }
                        return
                    }
                }
            }
        }
        usleep(300_000)
        #expect(answered.load(ordering: .relaxed) > 0)
        let started = Date()
        kill(process.processIdentifier, SIGTERM)
        for ws in held { #expect(try ws.closeCode() == 1001) }
        #expect(group.wait(timeout: .now() + 5) == .success)
        #expect(closes.withLock { $0 } == [1001, 1001, 1001, 1001])
        waitForExit(process, seconds: 5)
        let took = Date().timeIntervalSince(started)
        #expect(process.terminationStatus == 0)
        #expect(took >= 1.4 && took < 3.5, "exited \(took) s after SIGTERM with --drain-ms 1500 and a 10 s call in flight")
    }

    @Test("SIGINT drains as SIGTERM does: the socket gets 1001, exit 0")
    func sigint() throws {
        let (process, out, _) = try launch(["--port", "0", "--admin-port", "0", "--web-root", Self.webRoot, "--demo"])
        defer { if process.isRunning { process.terminate() } }
        let parts = firstLine(out).split(separator: " ")
        let port = try #require(parts.dropFirst().first.flatMap { Int($0.dropFirst("port=".count)) })
        let ws = try TestWebSocket(port: port)
        try ws.hello()
        kill(process.processIdentifier, SIGINT)
        #expect(try ws.closeCode() == 1001)
        waitForExit(process)
        #expect(process.terminationStatus == 0)
    }

    @Test("a second SIGTERM during the drain exits 0 at once")
    func secondSignal() throws {
        let (process, out, _) = try launch(["--port", "0", "--admin-port", "0", "--web-root", Self.webRoot, "--demo", "--drain-ms", "8000"])
        defer { if process.isRunning { process.terminate() } }
        let parts = firstLine(out).split(separator: " ")
        let port = try #require(parts.dropFirst().first.flatMap { Int($0.dropFirst("port=".count)) })
        let adminPort = try #require(parts.dropFirst(2).first.flatMap { Int($0.dropFirst("admin-port=".count)) })
        let busy = try TestWebSocket(port: port)
        try busy.hello()
        try busy.send(callMessage(1, "test.sleepSyn", 6_000))  // holds the drain
        let idle = try TestWebSocket(port: port)
        try idle.hello()
        kill(process.processIdentifier, SIGTERM)
        #expect(try idle.closeCode() == 1001)
        #expect(try TestHTTP.request(port: adminPort, path: "/healthz").status == 503)
        let started = Date()
        kill(process.processIdentifier, SIGTERM)
        waitForExit(process, seconds: 5)
        #expect(process.terminationStatus == 0)
        #expect(Date().timeIntervalSince(started) < 2, "the second signal did not wait for the drain")
    }

    @Test("systemd notify: READY=1 once serving, WATCHDOG=1 pings, STOPPING=1 on SIGTERM")
    func systemdNotify() throws {
        let listener = try NotifyListener()
        let (process, out, _) = try launch(
            ["--port", "0", "--admin-port", "0", "--web-root", Self.webRoot],
            environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "200000"])
        defer { if process.isRunning { process.terminate() } }
        _ = firstLine(out)
        let ready = try #require(try listener.receive(timeout: 5))
        #expect(ready.hasPrefix("READY=1"))
        #expect(ready.contains("MAINPID=\(process.processIdentifier)"))
        #expect(try listener.receive(timeout: 2) == "WATCHDOG=1")
        kill(process.processIdentifier, SIGTERM)
        var seen: [String] = []
        while let m = try listener.receive(timeout: 2), !m.hasPrefix("STOPPING=1") { seen.append(m) }
        #expect(seen.allSatisfy { $0 == "WATCHDOG=1" })
        waitForExit(process)
        #expect(process.terminationStatus == 0)
    }

    @Test("metrics: /metrics on the admin listener counts a known workload (Prometheus text)")
    func metrics() throws {
        let (process, out, _) = try launch(["--port", "0", "--admin-port", "0", "--admin-token", "t", "--web-root", Self.webRoot])
        defer { if process.isRunning { process.terminate() } }
        let parts = firstLine(out).split(separator: " ")
        let port = try #require(parts.dropFirst().first.flatMap { Int($0.dropFirst("port=".count)) })
        let adminPort = try #require(parts.dropFirst(2).first.flatMap { Int($0.dropFirst("admin-port=".count)) })
        let ws = try TestWebSocket(port: port)
        try ws.hello()
        try ws.send(callMessage(1, "_dsb.closePage", nil))  // no demo interfaces: a known internal call
        _ = try ws.closeCode()
        let other = try TestWebSocket(port: port)
        let welcome = try other.hello()
        try other.send(callMessage(1, "nope.x", nil))
        try other.send(callMessage(2, "_dsb.hasNativeMethod", ["name": "x"]))
        _ = try other.nextMessage()
        _ = try other.nextMessage()
        // Two native calls: one the page never gets (not ready: it times out), one answered.
        let session = try #require(welcome["session"]?.stringValue)
        let admin = ["Authorization": "Bearer t"]
        @Sendable func adminCall(_ timeoutMs: Int) throws -> TestHTTP.Response {
            let body: JSONValue = ["method": "f", "args": [], "timeoutMs": .integer(Int64(timeoutMs))]
            return try TestHTTP.request(
                port: adminPort, method: "POST", path: "/admin/sessions/\(session)/call", headers: admin, body: Array(body.description.utf8))
        }
        #expect(try adminCall(50).status == 504)
        try other.send(callMessage(3, "_dsb.dsinit", nil))
        _ = try other.nextMessage()  // dsinit's ret, or the invoke held until it
        let answered = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            answered.withLock { $0 = try? adminCall(5_000).status }
            done.signal()
        }.start()
        var invoke = try other.nextMessage()
        if invoke["t"]?.stringValue != "invoke" { invoke = try other.nextMessage() }
        let callbackId = try #require(invoke["callbackId"]?.integerValue)
        try other.send(callMessage(4, "_dsb.returnValue", ["id": .integer(callbackId), "data": 7, "complete": true]))
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(answered.withLock { $0 } == 200)
        #expect(try TestHTTP.request(port: adminPort, path: "/metrics").status == 401)
        let text = try TestHTTP.request(port: adminPort, path: "/metrics", headers: ["Authorization": "Bearer t"]).text
        let lines = Set(text.split(separator: "\n").map(String.init))
        for expected in [
            "dsbridge_sessions_opened_total 2",
            "dsbridge_sessions_closed_total{code=\"1000\"} 1",
            "dsbridge_calls_total{method=\"_dsb.closePage\",outcome=\"ok\"} 1",
            "dsbridge_calls_total{method=\"unknown\",outcome=\"methodNotFound\"} 1",
            "dsbridge_calls_total{method=\"_dsb.hasNativeMethod\",outcome=\"ok\"} 1",
            "dsbridge_sessions{state=\"connected\"} 1.0",
            "dsbridge_native_calls_total{outcome=\"timeout\"} 1",
            "dsbridge_native_calls_total{outcome=\"completed\"} 1",
        ] {
            #expect(lines.contains(expected), "missing: \(expected)")
        }
        // The event-loop lag histogram (PROTOCOL.md 2.6), with its sub-millisecond buckets;
        // the first scrape's answer, posted from a worker, was itself measured.
        let again = try TestHTTP.request(port: adminPort, path: "/metrics", headers: ["Authorization": "Bearer t"]).text
        let lag = again.split(separator: "\n").filter { $0.hasPrefix("dsbridge_event_loop_lag_seconds") }
        #expect(lag.contains { $0.hasPrefix("dsbridge_event_loop_lag_seconds_bucket{le=\"0.0001\"}") }, "\(lag)")
        let count = lag.first { $0.hasPrefix("dsbridge_event_loop_lag_seconds_count") }.flatMap { Int($0.split(separator: " ").last ?? "") }
        #expect((count ?? 0) >= 1, "\(lag)")
        // Call durations in buckets made for calls (CallDurationHistogram): from 25 µs.
        #expect(lines.contains { $0.hasPrefix("dsbridge_call_duration_seconds_bucket{le=\"0.000025\"}") }, "\(text)")
    }

    @Test("journal format: syslog priority prefixes, no timestamps, metadata as key=value")
    func journalLogging() throws {
        let (process, out, err) = try launch(
            ["--port", "0", "--admin-port", "0", "--web-root", Self.webRoot],
            environment: ["DSBRIDGED_LOG_FORMAT": "journal"])
        _ = firstLine(out)
        kill(process.processIdentifier, SIGTERM)
        waitForExit(process)
        let lines = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasPrefix("<") && $0.dropFirst(2).hasPrefix(">") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("<6>serving") && $0.contains("bridge.port=") })
        #expect(!lines.contains { $0.contains("T") && $0.contains("+0000") })
    }

    @Test(
        "a bad setting stops the start with a message that names it",
        arguments: [
            (["--port", "70000"], "--port must be from 0 to 65535"),
            (["--heartbeat-ms", "0"], "--heartbeat-ms must be a positive integer"),
            (["--log-level", "loud"], "--log-level must be one of"),
            (["--allowed-origin", "example.com"], "--allowed-origin example.com must look like"),
            (["--config", "/nonexistent/dsbridged.json"], "cannot read config file"),
            (["--max-depth", "0"], "--max-depth must be a positive integer"),
            (["--max-calls-per-second=-1"], "--max-calls-per-second must be 0 or more"),
            (["--drain-ms=-5"], "--drain-ms must be 0 or more"),
            (["--max-header-bytes", "100"], "--max-header-bytes must be from 1024 to 65535"),
            (["--tls-cert", "/nonexistent/cert.pem"], "--tls-cert and --tls-key go together"),
            (["--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"], "cannot read TLS file /nonexistent/cert.pem"),
            (["--admin-token", ""], "--admin-token must not be empty"),
            (["--auth-token", ""], "--auth-token must not be empty"),
            (["--web-root", "/nonexistent/web"], "--web-root /nonexistent/web is not a directory"),
            (["--check-config", "--max-depth", "0"], "--max-depth must be a positive integer"),
            (["--check-config", "--heartbeat-ms", "9223372036854775807"], "--heartbeat-ms must be at most 86400000"),
            (["--check-config", "--grace-ms", "100000000000"], "--grace-ms must be at most 86400000"),
            (["--check-config", "--max-message-bytes", "9223372036854775807"], "--max-message-bytes must be at most 1073741824"),
            (["--check-config", "--max-depth", "100000"], "--max-depth must be at most 1000"),
            (["--check-config", "--replay-max-bytes", "9223372036854775807"], "--replay-max-bytes must be at most"),
            // The Redis URL is checked by --check-config as a start checks it.
            (["--check-config", "--redis", "http://127.0.0.1:6379"], "must start with redis:// or unix://"),
            (["--check-config", "--redis", "redis://127.0.0.1:99999"], "the port must be a number from 1 to 65535"),
            (["--check-config", "--redis", "redis://127.0.0.1:6379/abc"], "the database must be a number"),
        ])
    func badSettings(arguments: [String], message: String) throws {
        let (process, _, err) = try launch(arguments)
        waitForExit(process)
        #expect(process.terminationStatus != 0)
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains(message), "\(text)")
    }

    @Test(
        "a bad config file or environment value is refused with a message that names it",
        arguments: [
            ("[1, 2]", [:], "must hold one JSON object"),
            ("{\"port\": ", [:], "is not JSON"),
            ("{\"port\": \"eighty\"}", [:], "config key \"port\" has the wrong type (a string)"),
            ("{\"allowed-origin\": \"https://a.example\"}", [:], "config key \"allowed-origin\" must be an array of strings"),
            ("{}", ["DSBRIDGED_MAX_DEPTH": "deep"], "environment variable DSBRIDGED_MAX_DEPTH=deep has the wrong type"),
        ] as [(String, [String: String], String)])
    func badConfigFile(content: String, environment: [String: String], message: String) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dsbridged-\(UUID().uuidString).json")
        try Data(content.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (process, _, err) = try launch(["--config", file.path], environment: environment)
        waitForExit(process)
        #expect(process.terminationStatus != 0)
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains(message), "\(text)")
    }

    @Test("--check-config prints the effective settings without secrets and exits 0 without listening")
    func checkConfig() throws {
        let (process, out, _) = try launch(
            ["--check-config", "--port", "1", "--admin-token", "s3cret-admin", "--web-root", Self.webRoot],
            environment: ["DSBRIDGED_AUTH_TOKEN": "s3cret-auth", "DSBRIDGED_MAX_DEPTH": "64"])
        waitForExit(process)
        #expect(process.terminationStatus == 0)
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = text.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.first == "configuration ok")
        #expect(lines.contains("port 1"), "port 1 is privileged: nothing was bound")
        #expect(lines.contains("max-depth 64"), "the environment is applied")
        #expect(lines.contains("admin-token (set)") && lines.contains("auth-token (set)"))
        #expect(!text.contains("s3cret"), "\(text)")
    }

    @Test("--check-config with --redis shows the node id the daemon would take (HOST:PORT, marked default)")
    func checkConfigShowsDerivedNodeID() throws {
        let (process, out, _) = try launch(["--check-config", "--port", "1", "--redis", "redis://127.0.0.1:1", "--web-root", Self.webRoot])
        waitForExit(process)
        #expect(process.terminationStatus == 0)
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.contains("node-id") }.map { $0.split(separator: " ").joined(separator: " ") }
        #expect(line?.hasSuffix(":1 (default)") == true, "\(text)")
    }

    @Test("a config file supplies settings and flags override it")
    func configFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dsbridged-\(UUID().uuidString).json")
        try Data("{\"port\": 0, \"admin-port\": 0, \"web-root\": \"\(Self.webRoot)\", \"demo\": true, \"heartbeat-ms\": 7000}".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (process, out, _) = try launch(["--config", file.path, "--heartbeat-ms", "9000"])
        defer { if process.isRunning { process.terminate() } }
        let line = firstLine(out)
        let port = try #require(line.split(separator: " ").dropFirst().first.flatMap { Int($0.dropFirst("port=".count)) })
        let ws = try TestWebSocket(port: port)
        #expect(try ws.hello()["heartbeat"] == 9000, "a flag beats the file")
        process.terminate()
        waitForExit(process)
        // The environment beats the file; a flag beats the environment.
        let (p3, out3, _) = try launch(["--config", file.path], environment: ["DSBRIDGED_HEARTBEAT_MS": "8000"])
        let port3 = try #require(firstLine(out3).split(separator: " ").dropFirst().first.flatMap { Int($0.dropFirst("port=".count)) })
        #expect(try TestWebSocket(port: port3).hello()["heartbeat"] == 8000)
        p3.terminate()
        waitForExit(p3)
        let (p4, out4, _) = try launch(["--config", file.path], environment: [:])
        let port4 = try #require(firstLine(out4).split(separator: " ").dropFirst().first.flatMap { Int($0.dropFirst("port=".count)) })
        #expect(try TestWebSocket(port: port4).hello()["heartbeat"] == 7000, "the file beats the default")
        p4.terminate()
        waitForExit(process)
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("dsbridged-\(UUID().uuidString).json")
        try Data("{\"prot\": 1}".utf8).write(to: bad)
        defer { try? FileManager.default.removeItem(at: bad) }
        let (p2, _, err) = try launch(["--config", bad.path])
        waitForExit(p2)
        #expect(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains("unknown key \"prot\""))
    }
}

/// Hands a value to exactly one other thread. `@unchecked Sendable` is safe because the
/// creating thread stops touching the value once it is handed over.
private final class OwnedByOneThread<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

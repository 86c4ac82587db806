// SPDX-License-Identifier: MIT
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` for a test: on 127.0.0.1, a free port (and a Unix socket in a
/// temporary directory), persisting nothing; started, stopped and started again on the same
/// port. Copy it for other Redis-backed tests.
///
/// ```swift
/// let server = try RedisServerProcess.start()
/// defer { server.stop() }
/// ```
public final class RedisServerProcess: @unchecked Sendable {  // unchecked: tests use one from one task at a time
    static let binary = "/usr/bin/redis-server"

    public enum Failure: Error, CustomStringConvertible {
        case notInstalled
        case noFreePort(String)
        case didNotStart(String)

        public var description: String {
            switch self {
            case .notInstalled:
                return "\(RedisServerProcess.binary) is missing: run scripts/install-test-deps.sh (it installs Debian's redis-server)"
            case .noFreePort(let why): return "could not find a free port: \(why)"
            case .didNotStart(let why): return "redis-server did not start: \(why)"
            }
        }
    }

    /// The TCP port (the same after ``restart()``).
    public let port: Int
    /// The directory holding the Unix socket and the server's log.
    public let directory: URL
    /// The Unix socket's path.
    public var socketPath: String { directory.appendingPathComponent("redis.sock").path }
    private var logPath: String { directory.appendingPathComponent("redis.log").path }
    private var process: Process?

    /// `redis://127.0.0.1:PORT[/DB]`.
    public func url(database: Int = 0) -> String {
        "redis://127.0.0.1:\(port)" + (database == 0 ? "" : "/\(database)")
    }

    private init(port: Int, directory: URL) {
        self.port = port
        self.directory = directory
    }

    /// Starts a server on a free port and waits (at most 10 s) until it answers PING. Throws
    /// when redis-server is not installed, saying how to install it: the test fails, it is
    /// not skipped.
    public static func start() throws -> RedisServerProcess {
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw Failure.notInstalled }
        let directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("dsbridge-redis-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let server = RedisServerProcess(port: try freePort(), directory: directory)
        try server.launch()
        return server
    }

    /// Starts the server again on the same port (after ``stop()``).
    public func restart() throws {
        try launch()
    }

    private func launch() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = [
            "--port", "\(port)", "--bind", "127.0.0.1", "--unixsocket", socketPath, "--unixsocketperm", "700",
            "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", directory.path, "--logfile", logPath,
        ]
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try Self.withSignalsUnblocked { try p.run() }
        process = p
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if !p.isRunning { throw Failure.didNotStart("it exited with \(p.terminationStatus); log: \(log)") }
            if Self.answersPing(port: port) { return }
            usleep(20_000)
        }
        stop()
        throw Failure.didNotStart("no PONG on port \(port) within 10 s; log: \(log)")
    }

    /// Stops the server (SIGTERM, then SIGKILL after 5 s) and waits until it has exited.
    public func stop() {
        guard let p = process else { return }
        process = nil
        guard p.isRunning else { return }
        kill(p.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
    }

    /// Runs `body` (which spawns the server) with no signal blocked in the calling thread.
    /// A child inherits its parent thread's signal mask, and the test runs on a libdispatch
    /// worker thread, which blocks SIGTERM among others: the server would then ignore the
    /// SIGTERM of ``stop()`` until it is killed.
    private static func withSignalsUnblocked<T>(_ body: () throws -> T) rethrows -> T {
        var none = sigset_t()
        var previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        return try body()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The server's log (for failure messages).
    public var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)).map { String($0.suffix(2000)) } ?? "(no log)"
    }

    /// A port nothing listens on: bound to port 0, learned, and released.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.noFreePort("socket() failed, errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw Failure.noFreePort("bind() failed, errno \(errno)") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Failure.noFreePort("getsockname() failed, errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something on `port` answers `PING` with `+PONG` within half a second.
    public static func answersPing(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 0, tv_usec: 500_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return false }
        let ping = Array("PING\r\n".utf8)
        guard send(fd, ping, ping.count, Int32(MSG_NOSIGNAL)) == ping.count else { return false }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count >= 5 && Array(buffer[0..<5]) == Array("+PONG".utf8)
    }
}

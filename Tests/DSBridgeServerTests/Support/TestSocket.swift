// SPDX-License-Identifier: MIT
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Errors of the test clients.
enum TestClientError: Error, CustomStringConvertible {
    case connectFailed(String)
    case timeout
    case closed
    case badHandshake(String)

    var description: String {
        switch self {
        case .connectFailed(let s): return "connect failed: \(s)"
        case .timeout: return "timed out"
        case .closed: return "connection closed"
        case .badHandshake(let s): return "bad handshake: \(s)"
        }
    }
}

/// A blocking TCP socket to 127.0.0.1 with a receive timeout; for tests only.
final class TestSocket {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, timeout: TimeInterval = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestClientError.connectFailed("socket()") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw TestClientError.connectFailed("connect() errno \(errno)")
        }
        setTimeout(timeout)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(fd) }

    func setTimeout(_ seconds: TimeInterval) {
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw TestClientError.closed }
            offset += n
        }
    }

    /// Reads exactly `count` bytes.
    func read(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { try fill() }
        let out = Array(buffer.prefix(count))
        buffer.removeFirst(count)
        return out
    }

    /// Reads up to and including `delimiter`.
    func read(until delimiter: [UInt8]) throws -> [UInt8] {
        while true {
            if let r = find(delimiter) {
                let out = Array(buffer[..<r])
                buffer.removeFirst(r)
                return out
            }
            try fill()
        }
    }

    /// Reads until the peer closes.
    func readToEnd() throws -> [UInt8] {
        while true {
            do { try fill() } catch TestClientError.closed { break }
        }
        let out = buffer
        buffer = []
        return out
    }

    private func find(_ d: [UInt8]) -> Int? {
        guard buffer.count >= d.count else { return nil }
        for i in 0...(buffer.count - d.count) where Array(buffer[i..<(i + d.count)]) == d { return i + d.count }
        return nil
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 { throw TestClientError.closed }
        if n < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { throw TestClientError.timeout }
            throw TestClientError.closed
        }
        buffer.append(contentsOf: chunk[0..<n])
    }
}

extension TestSocket {
    /// Reads one HTTP answer: its head and its body (by `content-length`).
    func readAnswer() throws -> (head: String, body: String) {
        let head = String(decoding: try read(until: Array("\r\n\r\n".utf8)), as: UTF8.self)
        let length =
            head.components(separatedBy: "\r\n")
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        return (head, String(decoding: try read(length), as: UTF8.self))
    }
}

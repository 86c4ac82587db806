// SPDX-License-Identifier: MIT

/// Where a Redis server listens, and which database to select: parsed from a URL,
/// `redis://HOST[:PORT][/DB]` or `unix:///PATH[?db=DB]`.
///
/// The port defaults to 6379 and the database to 0; an IPv6 address is written in brackets
/// (`redis://[::1]:6379`). Passwords (`user:pass@`), TLS (`rediss://`) and other query
/// parameters are rejected with a ``RedisEndpointError`` that says so. Prefer a numeric
/// address: a host name is resolved (getaddrinfo, blocking) on every connection attempt.
public struct RedisEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The transport to the server.
    public enum Address: Sendable, Hashable {
        /// TCP to `host` (a name, an IPv4 address, or an IPv6 address without brackets).
        case tcp(host: String, port: Int)
        /// A Unix socket at an absolute path.
        case unix(path: String)
    }

    /// The longest Unix socket path, in bytes (`sun_path` holds 108 with the NUL; hiredis 0.14
    /// would silently cut a longer one).
    public static let maxSocketPathLength = 107

    /// The server's address.
    public var address: Address
    /// The database selected after every connection (`SELECT`), 0 by default.
    public var database: Int

    /// An endpoint from its parts, not validated (``init(parsing:)`` validates).
    public init(address: Address, database: Int = 0) {
        self.address = address
        self.database = database
    }

    /// Parses `redis://HOST[:PORT][/DB]` or `unix:///PATH[?db=DB]`.
    /// - Throws: ``RedisEndpointError`` with a message saying what is wrong and what to write.
    public init(parsing url: String) throws(RedisEndpointError) {
        let lowered = url.lowercased()
        if lowered.hasPrefix("redis://") {
            self = try Self.parseTCP(url, rest: url.dropFirst("redis://".count))
        } else if lowered.hasPrefix("unix://") {
            self = try Self.parseUnix(url, rest: url.dropFirst("unix://".count))
        } else {
            throw .unsupportedScheme(url: url)
        }
    }

    /// The URL form, which ``init(parsing:)`` reads back: `redis://HOST:PORT[/DB]` (the port
    /// always written, the database when not 0) or `unix:///PATH[?db=DB]`.
    public var description: String {
        switch address {
        case .tcp(let host, let port):
            let shownHost = host.contains(":") ? "[\(host)]" : host
            return "redis://\(shownHost):\(port)" + (database == 0 ? "" : "/\(database)")
        case .unix(let path):
            return "unix://\(path)" + (database == 0 ? "" : "?db=\(database)")
        }
    }

    private static func parseTCP(_ url: String, rest: Substring) throws(RedisEndpointError) -> RedisEndpoint {
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        if authority.contains("@") { throw .credentialsNotSupported(url: url) }
        let (host, portText) = try splitHostPort(url, authority)
        var port = 6379
        if let portText {
            guard let value = decimal(portText, max: 65535), value >= 1 else { throw .invalidPort(url: url, port: String(portText)) }
            port = value
        }
        var database = 0
        let tail = rest[authorityEnd...]
        if tail.first == "/" {
            let text = tail.dropFirst()
            if let other = text.firstIndex(where: { $0 == "?" || $0 == "#" || $0 == "/" }) {
                throw .unsupportedComponent(url: url, component: String(text[other...]))
            }
            if !text.isEmpty {
                guard let value = decimal(text, max: Int(Int32.max)) else { throw .invalidDatabase(url: url, database: String(text)) }
                database = value
            }
        } else if !tail.isEmpty {
            throw .unsupportedComponent(url: url, component: String(tail))
        }
        return RedisEndpoint(address: .tcp(host: host, port: port), database: database)
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port`.
    private static func splitHostPort(_ url: String, _ authority: Substring) throws(RedisEndpointError) -> (String, Substring?) {
        var host: Substring
        var portText: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidHost(url: url) }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.first == ":" {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                throw .invalidHost(url: url)
            }
            guard host.contains(":") else { throw .invalidHost(url: url) }
        } else {
            if let colon = authority.firstIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "[" || $0 == "]" || $0.asciiValue.map { $0 < 0x20 } == true })
        else { throw .invalidHost(url: url) }
        return (String(host), portText)
    }

    private static func parseUnix(_ url: String, rest: Substring) throws(RedisEndpointError) -> RedisEndpoint {
        let queryStart = rest.firstIndex(of: "?") ?? rest.endIndex
        let path = rest[..<queryStart]
        guard path.first == "/", path.count > 1 else { throw .invalidSocketPath(url: url) }
        guard path.utf8.count <= maxSocketPathLength else { throw .socketPathTooLong(url: url, length: path.utf8.count) }
        var database = 0
        if queryStart < rest.endIndex {
            for parameter in rest[rest.index(after: queryStart)...].split(separator: "&", omittingEmptySubsequences: false) {
                guard parameter.hasPrefix("db=") else { throw .unsupportedComponent(url: url, component: String(parameter)) }
                let text = parameter.dropFirst("db=".count)
                guard let value = decimal(text, max: Int(Int32.max)) else { throw .invalidDatabase(url: url, database: String(text)) }
                database = value
            }
        }
        return RedisEndpoint(address: .unix(path: String(path)), database: database)
    }

    /// A non-negative decimal number of at most `max` (ASCII digits only, no sign).
    private static func decimal(_ text: Substring, max: Int) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(text), value <= max
        else { return nil }
        return value
    }
}

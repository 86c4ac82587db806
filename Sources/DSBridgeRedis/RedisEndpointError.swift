// SPDX-License-Identifier: MIT

/// Why a Redis URL was rejected by ``RedisEndpoint/init(parsing:)``; ``description`` says
/// what to write instead.
public enum RedisEndpointError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Neither `redis://` nor `unix://` (`rediss://`, TLS, is not supported either).
    case unsupportedScheme(url: String)
    /// `user:pass@` in the URL: AUTH is not implemented.
    case credentialsNotSupported(url: String)
    /// `redis://` with no host, or a host with spaces, or an unclosed `[`.
    case invalidHost(url: String)
    /// The port is not a number from 1 to 65535.
    case invalidPort(url: String, port: String)
    /// The database is not a number from 0 to 2147483647.
    case invalidDatabase(url: String, database: String)
    /// `unix://` not followed by an absolute path (`unix:///run/redis.sock`).
    case invalidSocketPath(url: String)
    /// The socket path is longer than a Unix socket address can hold (107 bytes).
    case socketPathTooLong(url: String, length: Int)
    /// A query parameter other than `db` (and only on `unix://`), or text after the database.
    case unsupportedComponent(url: String, component: String)

    public var description: String {
        switch self {
        case .unsupportedScheme(let url):
            if url.lowercased().hasPrefix("rediss://") {
                return "redis URL '\(url)' uses TLS (rediss://), which is not supported: use redis://HOST:PORT or unix:///PATH"
            }
            return "redis URL '\(url)' must start with redis:// or unix:// (redis://HOST:PORT[/DB] or unix:///PATH[?db=N])"
        case .credentialsNotSupported(let url):
            return
                "redis URL '\(Self.redacted(url))' has a user or password (user:pass@): passwords are not supported yet; use a Redis without AUTH, reachable only by this host (bind 127.0.0.1 or a Unix socket)"
        case .invalidHost(let url):
            return "redis URL '\(url)' has no valid host: write redis://HOST:PORT, with an IPv6 address in brackets (redis://[::1]:6379)"
        case .invalidPort(let url, let port):
            return "redis URL '\(url)' has port '\(port)': the port must be a number from 1 to 65535 (the default is 6379)"
        case .invalidDatabase(let url, let database):
            return
                "redis URL '\(url)' has database '\(database)': the database must be a number from 0 to 2147483647 (redis://HOST:PORT/DB or unix:///PATH?db=DB)"
        case .invalidSocketPath(let url):
            return "redis URL '\(url)' has no absolute socket path: write unix:///path/to/redis.sock (three slashes)"
        case .socketPathTooLong(let url, let length):
            return "redis URL '\(url)' has a socket path of \(length) bytes: a Unix socket path can have at most \(RedisEndpoint.maxSocketPathLength) bytes"
        case .unsupportedComponent(let url, let component):
            return "redis URL '\(url)' has '\(component)', which is not supported: only redis://HOST[:PORT][/DB] and unix:///PATH[?db=DB] are"
        }
    }

    /// The URL with whatever sits between `://` and `@` replaced, so a password does not reach a log.
    private static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].lastIndex(of: "@") else { return url }
        return url[..<scheme.upperBound] + "***" + url[at...]
    }
}

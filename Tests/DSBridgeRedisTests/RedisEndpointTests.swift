// SPDX-License-Identifier: MIT
import DSBridgeRedis
import Testing

@Suite("Redis URLs")
struct RedisEndpointTests {
    @Test(
        "a good URL is parsed, with port 6379 and database 0 by default, and printed back",
        arguments: [
            ("redis://127.0.0.1:6380/2", RedisEndpoint.Address.tcp(host: "127.0.0.1", port: 6380), 2, "redis://127.0.0.1:6380/2"),
            ("redis://cache.internal", .tcp(host: "cache.internal", port: 6379), 0, "redis://cache.internal:6379"),
            ("redis://localhost:7000/", .tcp(host: "localhost", port: 7000), 0, "redis://localhost:7000"),
            ("REDIS://h/15", .tcp(host: "h", port: 6379), 15, "redis://h:6379/15"),
            ("redis://[::1]:6390/1", .tcp(host: "::1", port: 6390), 1, "redis://[::1]:6390/1"),
            ("redis://[fe80::1]", .tcp(host: "fe80::1", port: 6379), 0, "redis://[fe80::1]:6379"),
            ("unix:///run/redis/redis.sock", .unix(path: "/run/redis/redis.sock"), 0, "unix:///run/redis/redis.sock"),
            ("unix:///tmp/r.sock?db=4", .unix(path: "/tmp/r.sock"), 4, "unix:///tmp/r.sock?db=4"),
        ])
    func goodURL(url: String, address: RedisEndpoint.Address, database: Int, printed: String) throws {
        let endpoint = try RedisEndpoint(parsing: url)
        #expect(endpoint.address == address)
        #expect(endpoint.database == database)
        #expect(endpoint.description == printed)
        #expect(try RedisEndpoint(parsing: endpoint.description) == endpoint)
    }

    @Test(
        "a bad URL is rejected with a message saying what to write",
        arguments: [
            ("127.0.0.1:6379", "redis URL '127.0.0.1:6379' must start with redis:// or unix:// (redis://HOST:PORT[/DB] or unix:///PATH[?db=N])"),
            ("x", "redis URL 'x' must start with redis:// or unix:// (redis://HOST:PORT[/DB] or unix:///PATH[?db=N])"),
            ("rediss://h:6379", "redis URL 'rediss://h:6379' uses TLS (rediss://), which is not supported: use redis://HOST:PORT or unix:///PATH"),
            (
                "redis://user:secret@h:6379",
                "redis URL 'redis://***@h:6379' has a user or password (user:pass@): passwords are not supported yet; use a Redis without AUTH, reachable only by this host (bind 127.0.0.1 or a Unix socket)"
            ),
            ("redis://:6379", "redis URL 'redis://:6379' has no valid host: write redis://HOST:PORT, with an IPv6 address in brackets (redis://[::1]:6379)"),
            (
                "redis://[::1:6379",
                "redis URL 'redis://[::1:6379' has no valid host: write redis://HOST:PORT, with an IPv6 address in brackets (redis://[::1]:6379)"
            ),
            ("redis://h:0", "redis URL 'redis://h:0' has port '0': the port must be a number from 1 to 65535 (the default is 6379)"),
            ("redis://h:65536", "redis URL 'redis://h:65536' has port '65536': the port must be a number from 1 to 65535 (the default is 6379)"),
            ("redis://h:", "redis URL 'redis://h:' has port '': the port must be a number from 1 to 65535 (the default is 6379)"),
            ("redis://h:+1", "redis URL 'redis://h:+1' has port '+1': the port must be a number from 1 to 65535 (the default is 6379)"),
            (
                "redis://h/x",
                "redis URL 'redis://h/x' has database 'x': the database must be a number from 0 to 2147483647 (redis://HOST:PORT/DB or unix:///PATH?db=DB)"
            ),
            (
                "redis://h/-1",
                "redis URL 'redis://h/-1' has database '-1': the database must be a number from 0 to 2147483647 (redis://HOST:PORT/DB or unix:///PATH?db=DB)"
            ),
            (
                "redis://h:1/0?timeout=3",
                "redis URL 'redis://h:1/0?timeout=3' has '?timeout=3', which is not supported: only redis://HOST[:PORT][/DB] and unix:///PATH[?db=DB] are"
            ),
            ("unix://run/redis.sock", "redis URL 'unix://run/redis.sock' has no absolute socket path: write unix:///path/to/redis.sock (three slashes)"),
            ("unix://", "redis URL 'unix://' has no absolute socket path: write unix:///path/to/redis.sock (three slashes)"),
            (
                "unix:///tmp/r.sock?db=a",
                "redis URL 'unix:///tmp/r.sock?db=a' has database 'a': the database must be a number from 0 to 2147483647 (redis://HOST:PORT/DB or unix:///PATH?db=DB)"
            ),
            (
                "unix:///tmp/r.sock?password=x",
                "redis URL 'unix:///tmp/r.sock?password=x' has 'password=x', which is not supported: only redis://HOST[:PORT][/DB] and unix:///PATH[?db=DB] are"
            ),
        ])
    func badURL(url: String, message: String) {
        #expect(throws: (any Error).self) { try RedisEndpoint(parsing: url) }
        do {
            _ = try RedisEndpoint(parsing: url)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("a Unix socket path longer than 107 bytes is rejected (hiredis would cut it)")
    func longSocketPath() {
        let path = "/" + String(repeating: "s", count: 107)
        #expect(throws: RedisEndpointError.socketPathTooLong(url: "unix://\(path)", length: 108)) { try RedisEndpoint(parsing: "unix://\(path)") }
        #expect((try? RedisEndpoint(parsing: "unix://" + path.dropLast())) != nil)
    }
}

// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridgeServer

@Suite("Client address behind a trusted proxy")
struct ClientAddressTests {
    let resolver = ClientAddress(trustedProxies: ["127.0.0.1", "::1"])

    @Test("a direct peer counts under its own address, whatever it writes in X-Forwarded-For")
    func untrustedPeer() {
        #expect(resolver.resolve(peer: "198.51.100.7", forwardedFor: "10.0.0.1") == "198.51.100.7")
        #expect(resolver.resolve(peer: "198.51.100.7", forwardedFor: nil) == "198.51.100.7")
    }

    @Test("a trusted proxy's last X-Forwarded-For entry is the client; earlier ones are the client's own words")
    func trustedProxy() {
        #expect(resolver.resolve(peer: "127.0.0.1", forwardedFor: "203.0.113.9") == "203.0.113.9")
        #expect(resolver.resolve(peer: "127.0.0.1", forwardedFor: "6.6.6.6, 203.0.113.9 ") == "203.0.113.9")
        #expect(resolver.resolve(peer: "::1", forwardedFor: "2001:db8::5") == "2001:db8::5")
    }

    @Test("a trusted proxy without a usable header counts under its own address")
    func trustedProxyWithoutHeader() {
        #expect(resolver.resolve(peer: "127.0.0.1", forwardedFor: nil) == "127.0.0.1")
        #expect(resolver.resolve(peer: "127.0.0.1", forwardedFor: "unknown") == "127.0.0.1")
        #expect(resolver.resolve(peer: "127.0.0.1", forwardedFor: "") == "127.0.0.1")
        #expect(resolver.resolve(peer: "127.0.0.1", forwardedFor: "1.2.3.4, not-an-ip") == "127.0.0.1")
        #expect(resolver.resolve(peer: "127.0.0.1", forwardedFor: "1.2.3.4,") == "127.0.0.1", "a trailing empty entry names no client")
    }

    @Test("only literal IPv4 and IPv6 addresses are addresses")
    func literals() {
        #expect(ClientAddress.isIPAddress("10.1.2.3"))
        #expect(ClientAddress.isIPAddress("::ffff:10.1.2.3"))
        #expect(!ClientAddress.isIPAddress("10.1.2"))
        #expect(!ClientAddress.isIPAddress("example.com"))
        #expect(!ClientAddress.isIPAddress(String(repeating: "1", count: 100)))
    }
}

@Suite("Sessions per address behind a trusted proxy, over real sockets")
struct TrustedProxyLimitTests {
    private func newSession(_ server: RunningServer, forwardedFor: String) throws -> Int {
        try TestHTTP.request(
            port: server.port, method: "POST", path: "/dsbridge/session",
            headers: ["X-Forwarded-For": forwardedFor], body: []
        ).status
    }

    @Test("with --trusted-proxy, maxSessionsPerAddress counts the forwarded client, not the proxy")
    func countsForwardedClient() throws {
        let server = try RunningServer(trustedProxies: ["127.0.0.1"], configure: { $0.maxSessionsPerAddress = 1 })
        defer { server.stop() }
        #expect(try newSession(server, forwardedFor: "203.0.113.1") == 200)
        #expect(try newSession(server, forwardedFor: "203.0.113.2") == 200)
        #expect(try newSession(server, forwardedFor: "203.0.113.1") == 429)
    }

    @Test("without it, X-Forwarded-For is ignored and the TCP peer is counted")
    func ignoresHeaderFromUntrustedPeer() throws {
        let server = try RunningServer(configure: { $0.maxSessionsPerAddress = 1 })
        defer { server.stop() }
        #expect(try newSession(server, forwardedFor: "203.0.113.1") == 200)
        #expect(try newSession(server, forwardedFor: "203.0.113.2") == 429)
    }
}

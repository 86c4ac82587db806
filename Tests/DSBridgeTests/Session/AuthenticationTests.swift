// SPDX-License-Identifier: MIT
import DSBridge
import Testing

/// Accepts pages whose upgrade request carried the cookie `sid=good`.
struct CookieAuthenticator: SessionAuthenticator {
    func authorize(_ request: SessionRequest) -> Bool {
        request.headers["cookie"]?.contains("sid=good") == true
    }
}

/// Tags each new session with its user, read from the `auth` of the hello.
struct TaggingAuthenticator: SessionAuthenticator {
    func authorize(_ request: SessionRequest) -> Bool { request.auth != nil }
    func tags(for request: SessionRequest) -> [String] { ["user:\(request.auth ?? "")", "room:7", "room:7"] }
}

@Suite("Authentication at hello")
struct AuthenticationTests {
    private func harness(_ bridge: Bridge, headers: [String: String] = [:]) -> BridgeHarness {
        BridgeHarness(sharing: bridge, connection: bridge.connect(peerAddress: "127.0.0.1", origin: nil, headers: headers, waker: CountingWaker()))
    }

    @Test("an authenticator tags the sessions it lets in (sorted, without duplicates)")
    func authenticatorTags() async throws {
        let bridge = Bridge(authenticator: TaggingAuthenticator())
        let h = harness(bridge)
        h.send(["t": "hello", "v": 1, "auth": "42"])
        #expect(try await h.messages(1)[0]["t"] == "welcome")
        #expect(bridge.sessions.first?.tags == ["room:7", "user:42"])
    }

    @Test("with a shared secret, hello without it or with a wrong one closes 1008; the right one opens")
    func sharedSecret() async throws {
        let bridge = Bridge(
            configuration: {
                var c = BridgeConfiguration(); c.authToken = "s3cret"; return c
            }())
        let missing = harness(bridge)
        missing.send(["t": "hello", "v": 1])
        #expect(try await missing.closeCode() == 1008)
        let wrong = harness(bridge)
        wrong.send(["t": "hello", "v": 1, "auth": "nope"])
        #expect(try await wrong.closeCode() == 1008)
        let right = harness(bridge)
        right.send(["t": "hello", "v": 1, "auth": "s3cret"])
        let welcome = try await right.messages(1)[0]
        #expect(welcome["t"] == "welcome")
        #expect(bridge.sessions.count == 1)
        // A resume must carry the secret too; refusing it leaves the session alone.
        let resume = harness(bridge)
        resume.send(["t": "hello", "v": 1, "token": welcome["token"] ?? .null])
        #expect(try await resume.closeCode() == 1008)
        #expect(bridge.sessions.first?.isConnected == true)
    }

    @Test("a custom authenticator sees the upgrade request's headers")
    func customAuthenticator() async throws {
        let bridge = Bridge(authenticator: CookieAuthenticator())
        let refused = harness(bridge, headers: ["cookie": "sid=bad"])
        refused.send(["t": "hello", "v": 1])
        #expect(try await refused.closeCode() == 1008)
        let accepted = harness(bridge, headers: ["cookie": "theme=dark; sid=good"])
        accepted.send(["t": "hello", "v": 1])
        #expect(try await accepted.messages(1)[0]["t"] == "welcome")
    }
}

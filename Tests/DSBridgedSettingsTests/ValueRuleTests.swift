// SPDX-License-Identifier: MIT
import DSBridgedSettings
import Testing

@Suite("Text settings follow their rules, and settings that go together are checked together")
struct ValueRuleTests {
    @Test("tokens must not be empty, and the message does not repeat them")
    func emptyTokens() {
        #expect(Resolving.refusal(["--admin-token", ""]) == "--admin-token must not be empty")
        #expect(Resolving.refusal(environment: ["DSBRIDGED_AUTH_TOKEN": ""]) == "--auth-token must not be empty")
    }

    @Test("an origin must start with http:// or https://")
    func origins() {
        #expect(Resolving.refusal(["--allowed-origin", "example.com"]) == "--allowed-origin example.com must look like http(s)://host[:port]")
        #expect(
            Resolving.refusal(file: #"{"allowed-origin": ["https://ok.example", "ftp://x"]}"#)
                == "--allowed-origin ftp://x must look like http(s)://host[:port]")
    }

    @Test("a trusted proxy must be a literal address")
    func proxies() throws {
        #expect(Resolving.refusal(["--trusted-proxy", "proxy.local"]) == "--trusted-proxy proxy.local must be an IPv4 or IPv6 address")
        #expect(try Resolving.resolve(environment: ["DSBRIDGED_TRUSTED_PROXY": "127.0.0.1 ::1"]).server.trustedProxies == ["127.0.0.1", "::1"])
    }

    @Test("log-level is one of swift-log's levels")
    func logLevel() {
        #expect(Resolving.refusal(["--log-level", "loud"]) == "--log-level must be one of trace, debug, info, notice, warning, error, critical; got loud")
    }

    @Test("--tls-cert and --tls-key go together, and both must be readable")
    func tls() {
        #expect(Resolving.refusal(["--tls-cert", "/nonexistent/cert.pem"]) == "--tls-cert and --tls-key go together: give both or neither")
        #expect(
            Resolving.refusal(["--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"]) == "cannot read TLS file /nonexistent/cert.pem")
    }

    @Test("--web-root must be a folder")
    func webRoot() {
        let message = Resolving.refusal(["--web-root", "/nonexistent/web"])
        #expect(message?.hasPrefix("--web-root /nonexistent/web is not a directory (relative paths start at ") == true, "\(message ?? "accepted")")
    }
}

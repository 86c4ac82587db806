// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridgeServer

@Suite("Raw request targets (PROTOCOL.md 1.2)")
struct RawRequestTargetTests {
    private func target(_ line: String) -> RawRequestTarget? {
        RawRequestTarget(requestLine: Array(line.utf8)[...])
    }

    @Test("parses method, path and query as sent")
    func parses() throws {
        let t = try #require(target("GET /%73ub?a=1&b=%20c HTTP/1.1"))
        #expect(t.method == "GET")
        #expect(Array(t.path) == Array("/%73ub".utf8))
        #expect(t.query.map(Array.init) == Array("a=1&b=%20c".utf8))
        #expect(t.directoryLocation == "/%73ub/?a=1&b=%20c")
        #expect(try #require(target("GET //evil.example/sub HTTP/1.1")).directoryLocation == "/evil.example/sub/")
        #expect(target("GET http://x/ HTTP/1.1") == nil)
        #expect(target("GARBAGE") == nil)
    }

    @Test(
        "refuses .., backslash and NUL once decoded, for GET and HEAD only",
        arguments: [
            ("GET /a/.. HTTP/1.1", true), ("GET /a/%2e%2E/b HTTP/1.1", true), ("HEAD /a%5cb HTTP/1.1", true),
            ("GET /a%00 HTTP/1.1", true), ("GET /a/..b HTTP/1.1", false), ("GET /.hidden HTTP/1.1", false),
            ("GET /a/%2e%2e%2f HTTP/1.1", true), ("POST /a/.. HTTP/1.1", false), ("GET /a%zz HTTP/1.1", false),
            ("GET /a?x=/../ HTTP/1.1", false),
        ])
    func refuses(line: String, refused: Bool) throws {
        #expect(try #require(target(line)).isRefusedStaticPath == refused)
    }
}

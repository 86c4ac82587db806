// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeServer
import Testing

@Suite("The admin call's body (PROTOCOL.md 6)")
struct AdminCallRequestTests {
    @Test(
        "timeoutMs: a positive integral number, above 300000 clamped, even beyond 64 bits",
        arguments: [
            ("5000", 5000), ("300000", 300_000), ("400000", 300_000), ("9223372036854775807", 300_000),
            ("9223372036854775808", 300_000), ("1e20", 300_000), ("2.0e3", 2000),
        ])
    func timeoutClamped(text: String, expected: Int) throws {
        let request = try AdminCallRequest(body: Array(#"{"method":"m","timeoutMs":\#(text)}"#.utf8))
        #expect(request.timeoutMs == expected)
    }

    @Test("timeoutMs that is not a positive integer is refused", arguments: ["0", "-1", "1.5", "-1e20", "\"5\"", "null", "true"])
    func timeoutRefused(text: String) {
        #expect(throws: ProtocolViolation.self) { try AdminCallRequest(body: Array(#"{"method":"m","timeoutMs":\#(text)}"#.utf8)) }
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import Testing

/// `--max-depth` is at most 1000 (the settings table, SettingsTable.swift): JSON that deep is parsed, run and written
/// back on every thread that handles it without exhausting a stack.
@Suite("JSON at the largest max-depth")
struct DepthBoundTests {
    @Test("a call nested 1000 levels deep is answered on the network thread and on a worker", arguments: ["echo.syn", "test.echo"])
    func deepestCall(method: String) throws {
        let server = try RunningServer { $0.maxDepth = 1000 }
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        // The frame's object is level 1, `arg` level 2, so `data` holds 998 levels.
        let data = String(repeating: "[", count: 998) + String(repeating: "]", count: 998)
        try ws.send("{\"t\":\"call\",\"id\":1,\"method\":\"\(method)\",\"arg\":{\"data\":\(data)}}")
        guard case .text(let text) = try ws.nextEvent() else { Issue.record("closed"); return }
        let ret = try JSONParser.parse(text, maxDepth: 1000)
        #expect(ret["code"] == 0)
        #expect(ret["data"]?.description == data)
    }
}

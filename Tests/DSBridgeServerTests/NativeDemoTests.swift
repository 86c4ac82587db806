// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Testing

/// `test.nativeDemo` (PROTOCOL.md 8): DSBridge's native→JS demo runs only when a page asks.
@Suite("test.nativeDemo over the WebSocket")
struct NativeDemoTests {
    static let demoMethods = [
        "addValue", "append", "startTimer", "syn.addValue", "syn.getInfo", "asyn.addValue", "asyn.getInfo",
        "_hasJavascriptMethod", "_hasJavascriptMethod", "_hasJavascriptMethod", "_hasJavascriptMethod",
    ]

    /// Waits (bounded) until the page has seen `count` invokes of `demoReport`.
    private func reports(_ page: ScriptedPage, count: Int) -> [JSONValue] {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let reports = page.invokesSeen.withLock { $0 }.filter { $0["method"] == "demoReport" }
            if reports.count >= count { return reports }
            usleep(5_000)
        }
        return page.invokesSeen.withLock { $0 }.filter { $0["method"] == "demoReport" }
    }

    private func expectDemoRan(on page: ScriptedPage) {
        let reports = reports(page, count: 11)
        #expect(reports.count == 11)
        for report in reports {
            #expect(report["args"]?.arrayValue?.first?["pass"] == true, "\(report)")
        }
        let demo = page.invokesSeen.withLock { $0 }.filter { $0["method"] != "demoReport" }
        #expect(demo.compactMap { $0["method"]?.stringValue } == Self.demoMethods)
        #expect(demo.compactMap { $0["callbackId"]?.integerValue } == Array(1...11))
        #expect(demo.first?["args"] == [3, 4])
        #expect(demo.dropFirst().first?["args"] == ["I", "love", "you"])
    }

    @Test("asked before dsinit: ret \"\", nothing sent until dsinit, then the 11 calls in order, each reported as PASS")
    func beforeReady() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let page = try ScriptedPage(port: server.port)
        defer { page.stop() }
        try page.send("test.nativeDemo", nil)
        #expect(try page.ws.nextMessage() == ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ""])
        // The two calls made at once are held: the next message is this call's ret, seq 2.
        try page.send("testSyn", "x")
        #expect(try page.ws.nextMessage() == ["t": "ret", "seq": 2, "id": 2, "code": 0, "data": "x[ syn call]"])
        page.start()
        expectDemoRan(on: page)
    }

    @Test("asked by a ready page over sync HTTP: the 11 calls run at once, each reported as PASS")
    func afterReady() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let page = try ScriptedPage(port: server.port)
        defer { page.stop() }
        page.start()
        let token = try #require(page.welcome["token"]?.stringValue)
        let answer = try server.syncCall(token: token, method: "test.nativeDemo", arg: nil, after: "1")
        #expect(answer.status == 200)
        #expect(try JSONParser.parse(String(decoding: answer.body, as: UTF8.self)) == ["code": 0, "data": ""])
        expectDemoRan(on: page)
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import Synchronization
import Testing

@Suite("WKWebView script message handlers: _webkit.postMessage and _page.callFunction (PROTOCOL.md 9.2)")
struct ScriptMessageHandlerTests {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "not today" }
    }

    /// What handlers saw, readable from the test.
    final class Recorder: Sendable {
        let values = Mutex<[String]>([])
        func add(_ value: String) { values.withLock { $0.append(value) } }
        var all: [String] { values.withLock { $0 } }
    }

    private func post(_ name: String, _ body: JSONValue) -> JSONValue {
        ["name": .string(name), "body": body]
    }

    @Test("postMessage answers with the handler's reply, in a ret without a stub")
    func replies() async throws {
        let h = BridgeHarness()
        h.bridge.addScriptMessageHandler(name: "echo") { message in message.body }
        _ = try await h.hello()
        h.call(1, "_webkit.postMessage", post("echo", ["a": [1, "two", nil]]))
        #expect(try await h.messages(1) == [["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ["a": [1, "two", nil]]]])
    }

    @Test("a handler that replies nothing answers null")
    func nilReplyIsNull() async throws {
        let h = BridgeHarness()
        h.bridge.addScriptMessageHandler(name: "sink") { _ in nil }
        _ = try await h.hello()
        h.call(1, "_webkit.postMessage", post("sink", 5))
        #expect(try await h.messages(1) == [["t": "ret", "seq": 1, "id": 1, "code": 0, "data": nil]])
    }

    @Test("the handler gets the name, the body and the calling session")
    func handlerSeesMessage() async throws {
        let h = BridgeHarness()
        let seen = Recorder()
        h.bridge.addScriptMessageHandler(name: "probe") { message in
            seen.add("\(message.name) \(message.body) \(message.session.id)")
            return "ok"
        }
        let welcome = try await h.hello()
        h.call(1, "_webkit.postMessage", ["name": "probe"])  // no body: null
        _ = try await h.messages(1)
        #expect(seen.all == ["probe null \(welcome["session"]?.stringValue ?? "?")"])
    }

    @Test("no handler of that name: methodNotFound, and nothing runs")
    func unknownHandler() async throws {
        let h = BridgeHarness()
        let ran = Recorder()
        h.bridge.addScriptMessageHandler(name: "other") { message in
            ran.add(message.name)
            return nil
        }
        _ = try await h.hello()
        h.call(1, "_webkit.postMessage", post("nope", 1))
        let m = try await h.messages(1)[0]
        #expect(m["code"] == -1 && m["error"]?["kind"] == "methodNotFound")
        #expect(ran.all.isEmpty)
    }

    @Test("a removed handler is no longer found")
    func removedHandler() async throws {
        let h = BridgeHarness()
        h.bridge.addScriptMessageHandler(name: "gone") { _ in nil }
        #expect(h.bridge.scriptMessageHandlerNames == ["gone"])
        h.bridge.removeScriptMessageHandler(forName: "gone")
        _ = try await h.hello()
        h.call(1, "_webkit.postMessage", post("gone", 1))
        #expect(try await h.messages(1)[0]["error"]?["kind"] == "methodNotFound")
    }

    @Test("a throwing handler: failed, with a message naming the handler and the error")
    func failingHandler() async throws {
        let h = BridgeHarness()
        h.bridge.addScriptMessageHandler(name: "strict") { _ in throw Refused() }
        _ = try await h.hello()
        h.call(1, "_webkit.postMessage", post("strict", 1))
        let m = try await h.messages(1)[0]
        #expect(m["code"] == -1 && m["error"]?["kind"] == "failed")
        let text = m["error"]?["message"]?.stringValue ?? ""
        #expect(text.contains("\"strict\"") && text.contains("not today"))
    }

    @Test("data that is not {name: string, body} is badArgument")
    func malformed() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, "_webkit.postMessage", "echo")
        h.call(2, "_webkit.postMessage", ["name": 3])
        #expect(try await h.messages(2).map { $0["error"]?["kind"] } == ["badArgument", "badArgument"])
    }

    @Test("a handler that waits for the page does not hold up the session's other calls")
    func waitingHandler() async throws {
        let h = BridgeHarness()
        let release = AsyncStream<Void>.makeStream()
        h.bridge.addScriptMessageHandler(name: "slow") { _ in
            for await _ in release.stream { break }
            return "late"
        }
        _ = try await h.hello()
        h.call(1, "_webkit.postMessage", post("slow", nil))
        h.call(2, "p.value", "quick")
        #expect(try await h.messages(1)[0] == ["t": "ret", "seq": 1, "id": 2, "code": 0, "data": "quick"])
        release.continuation.yield()
        #expect(try await h.messages(1)[0] == ["t": "ret", "seq": 2, "id": 1, "code": 0, "data": "late"])
    }

    @Test("hasNativeMethod counts _webkit.postMessage as a sync method")
    func hasNativeMethod() {
        let registry = InterfaceRegistry()
        #expect(CallRoute.hasNativeMethod("_webkit.postMessage", type: "syn", in: registry))
        #expect(!CallRoute.hasNativeMethod("_webkit.postMessage", type: "asyn", in: registry))
        #expect(!CallRoute.hasNativeMethod("_webkit.other", type: "all", in: registry))
    }

    @Test(
        "other names in the reserved namespaces are methodNotFound",
        arguments: [
            "_webkit.other", "_webkit.postMessage.x", "_page.callFunction", "_page.a.b", "_wvjb.nothing", "_dsb.x.y",
        ])
    func reservedNamesNotFound(method: String) async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, method, nil)
        #expect(try await h.messages(1)[0]["error"]?["kind"] == "methodNotFound")
    }

    @Test("_dsb, _wvjb, _webkit, _page, _hotwire and names inside them are reserved; look-alikes are not")
    func reservedNamespaces() {
        for reserved in ["_dsb", "_wvjb", "_webkit", "_page", "_hotwire", "_webkit.x", "_page.a.b", "_hotwire.receive"] {
            #expect(MethodName.isReserved(namespace: reserved), "\(reserved)")
        }
        for free in ["", "webkit", "page", "_webkitx", "_pages", "x._page", "_Page", "hotwire", "_hotwired"] {
            #expect(!MethodName.isReserved(namespace: free), "\(free)")
        }
        // The check answers an application's name at its first byte: it holds only while
        // every reserved namespace starts with "_".
        #expect(MethodName.reservedNamespaces.allSatisfy { $0.hasPrefix("_") })
    }

    @Test("registering an interface under a reserved namespace stops the program")
    func registeringReservedTraps() async {
        await #expect(processExitsWith: .failure) {
            InterfaceRegistry().addInterface(ProbeInterface(), by: "_webkit")
        }
        await #expect(processExitsWith: .failure) {
            InterfaceRegistry().addInterfaceFactory(by: "_page") { _ in ProbeInterface() }
        }
    }
}

@Suite("session.callFunction: native calls of page functions by path")
struct PageFunctionCallTests {
    private func readySession(_ h: BridgeHarness) async throws -> BridgeSession {
        let welcome = try await h.hello()
        h.call(1, "_dsb.dsinit", nil)
        _ = try await h.messages(1)
        return try #require(h.bridge.session(token: welcome["token"]?.stringValue ?? ""))
    }

    @Test("callFunction invokes _page.callFunction with [path, args…] and returns the page's answer")
    func callsByPath() async throws {
        let h = BridgeHarness()
        let session = try await readySession(h)
        async let answer = session.callFunction("wadInterface.fromNative", 7, true, ["x": 1])
        let invoke = try await h.messages(1)[0]
        #expect(invoke["method"] == "_page.callFunction")
        #expect(invoke["args"] == ["wadInterface.fromNative", 7, true, ["x": 1]])
        h.call(2, "_dsb.returnValue", ["id": invoke["callbackId"] ?? .null, "data": ["done": true]])
        #expect(try await answer == ["done": true])
    }

    @Test("the page's error (not a function PATH) fails the call as a JavaScript error")
    func pageError() async throws {
        let h = BridgeHarness()
        let session = try await readySession(h)
        let call = Task { () async throws -> JSONValue in try await session.callFunction("nope.fn") }
        let invoke = try await h.messages(1)[0]
        h.call(2, "_dsb.returnValue", ["id": invoke["callbackId"] ?? .null, "error": "not a function nope.fn"])
        await #expect(throws: JavaScriptCallError.call(.javaScript("not a function nope.fn"))) { try await call.value }
    }

    @Test("callFunction times out like session.call")
    func timesOut() async throws {
        let h = BridgeHarness()
        let session = try await readySession(h)
        let call = Task { try await session.callFunction("bridge.sayHello", arguments: [], timeout: .milliseconds(30)) }
        _ = try await h.messages(1)  // its invoke went out: the timeout is scheduled
        h.executor.advance(milliseconds: 30)
        await #expect(throws: JavaScriptCallError.call(.timeout)) { try await call.value }
    }
}

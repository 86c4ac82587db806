// SPDX-License-Identifier: MIT
import DSBridge
import Dispatch
import Synchronization
import Testing

/// A value handlers running on other threads record into.
final class Recorded<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ initial: Value) { value = Mutex(initial) }
    func update(_ body: @Sendable (inout Value) -> Void) { value.withLock { body(&$0) } }
    var current: Value { value.withLock { $0 } }
}

@Suite("WebViewJavascriptBridge: _wvjb.call, _wvjb.handle and the handler registry (PROTOCOL.md 9.1)")
struct WebViewJavascriptBridgeTests {
    private func call(_ h: BridgeHarness, _ id: Int64, handler: String, data: JSONValue?, stub: String?) {
        var message: JSONObject = ["handlerName": .string(handler)]
        if let data { message["data"] = data }
        h.call(id, "_wvjb.call", .object(message), stub: stub)
    }

    @Test("callHandler with a callback: ret \"\" at once, then the response as one final cb")
    func respondsThroughOneFinalCallback() async throws {
        let h = BridgeHarness()
        h.bridge.registerHandler("ObjC Echo") { data, responseCallback in responseCallback(data) }
        _ = try await h.hello()
        call(h, 1, handler: "ObjC Echo", data: ["a": [1, "x\"\\"]], stub: "dscb0")
        #expect(
            try await h.messages(2) == [
                ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ""],
                ["t": "cb", "seq": 2, "stub": "dscb0", "data": ["a": [1, "x\"\\"]], "complete": true],
            ])
    }

    @Test("without a callback the handler runs and its response is dropped; omitted data is null")
    func withoutCallbackTheResponseIsDropped() async throws {
        let h = BridgeHarness()
        let seen = Recorded<[JSONValue]>([])
        h.bridge.registerHandler("note") { data, responseCallback in
            seen.update { $0.append(data) }
            responseCallback("dropped")
        }
        _ = try await h.hello()
        call(h, 1, handler: "note", data: nil, stub: nil)
        h.call(2, "p.value", "next")
        #expect(
            try await h.messages(2) == [
                ["t": "ret", "seq": 1, "id": 1, "code": 0, "data": ""],
                ["t": "ret", "seq": 2, "id": 2, "code": 0, "data": "next"],
            ])
        #expect(seen.current == [.null])
    }

    @Test("no handler of that name: ret code -1 methodNotFound, no cb, nothing runs")
    func unknownHandlerIsMethodNotFound() async throws {
        let h = BridgeHarness()
        let ran = Recorded(0)
        h.bridge.registerHandler("echoHandler") { _, r in
            ran.update { $0 += 1 }
            r()
        }
        _ = try await h.hello()
        call(h, 1, handler: "echohandler", data: 1, stub: "dscb0")
        h.call(2, "p.value", "next")
        let m = try await h.messages(2)
        #expect(m[0]["code"] == -1 && m[0]["data"] == "" && m[0]["error"]?["kind"] == "methodNotFound")
        #expect(m[1]["id"] == 2, "no cb follows a ret with code -1")
        #expect(ran.current == 0)
    }

    @Test("a message that is not {\"handlerName\": STRING, …} is badArgument")
    func malformedMessageIsBadArgument() async throws {
        let h = BridgeHarness()
        _ = try await h.hello()
        h.call(1, "_wvjb.call", "echoHandler", stub: "dscb0")
        h.call(2, "_wvjb.call", ["handlerName": 5])
        let m = try await h.messages(2)
        #expect(m.map { $0["error"]?["kind"] } == ["badArgument", "badArgument"])
    }

    @Test("the first responseCallback wins, later ones are ignored; a response may come later from another thread")
    func firstResponseWins() async throws {
        let h = BridgeHarness()
        h.bridge.registerHandler("later") { data, responseCallback in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
                responseCallback(data)
                responseCallback("second")
            }
        }
        _ = try await h.hello()
        call(h, 1, handler: "later", data: "first", stub: "dscb0")
        h.call(2, "p.void", nil)
        let m = try await h.messages(3)
        #expect(m[2] == ["t": "cb", "seq": 3, "stub": "dscb0", "data": "first", "complete": true])
        let more = try? await h.messages(1, timeout: .milliseconds(100))
        #expect(more == nil, "the second response is ignored")
    }

    @Test("a removed handler is not found")
    func removedHandlerIsGone() async throws {
        let h = BridgeHarness()
        h.bridge.registerHandler("gone") { _, r in r() }
        h.bridge.removeHandler("gone")
        _ = try await h.hello()
        call(h, 1, handler: "gone", data: nil, stub: "dscb0")
        #expect(try await h.messages(1)[0]["error"]?["kind"] == "methodNotFound")
    }

    @Test("registering an interface under _wvjb (or inside it) stops the program")
    func registeringUnderWvjbTraps() async {
        await #expect(processExitsWith: .failure) {
            Bridge().addInterface(ProbeInterface(), by: "_wvjb")
        }
        await #expect(processExitsWith: .failure) {
            Bridge().addInterfaceFactory(by: "_wvjb.x") { _ in ProbeInterface() }
        }
    }

    @Test("_wvjb.call is no interface: not listed, not removable, an async method for hasNativeMethod")
    func wvjbCallIsInternal() async throws {
        let h = BridgeHarness()
        #expect(!h.bridge.registry.namespaces.contains("_wvjb"))
        #expect(CallRoute.hasNativeMethod("_wvjb.call", type: "asyn", in: h.bridge.registry))
        #expect(!CallRoute.hasNativeMethod("_wvjb.call", type: "syn", in: h.bridge.registry))
        #expect(!CallRoute.hasNativeMethod("_wvjb.handle", type: "all", in: h.bridge.registry))
        h.bridge.removeInterface(by: "_wvjb")
        h.bridge.registerHandler("echoHandler") { data, r in r(data) }
        _ = try await h.hello()
        call(h, 1, handler: "echoHandler", data: 3, stub: "dscb0")
        #expect(try await h.messages(2)[1] == ["t": "cb", "seq": 2, "stub": "dscb0", "data": 3, "complete": true])
    }

    @Test("session.callHandler: an invoke of _wvjb.handle with [{handlerName, data}], held until dsinit")
    func callHandlerInvokesWvjbHandle() async throws {
        let h = BridgeHarness()
        let welcome = try await h.hello()
        let session = try #require(h.bridge.session(token: welcome["token"]?.stringValue ?? ""))
        async let answer = session.callHandler("echoHandler", data: ["a": 1])
        let early = try? await h.messages(1, timeout: .milliseconds(50))
        #expect(early == nil, "nothing is sent before the page is ready")
        h.call(1, "_dsb.dsinit", nil)
        let invoke = try #require(try await h.messages(2).first { $0["t"] == "invoke" })
        #expect(invoke["method"] == "_wvjb.handle")
        #expect(invoke["args"] == [["handlerName": "echoHandler", "data": ["a": 1]]])
        h.call(2, "_dsb.returnValue", ["id": invoke["callbackId"] ?? .null, "data": ["a": 1]])
        #expect(try await answer == ["a": 1])
    }

    @Test("session.callHandler: the page's `no handler NAME` error fails the call")
    func callHandlerOfMissingPageHandlerFails() async throws {
        let h = BridgeHarness()
        let welcome = try await h.hello()
        h.call(1, "_dsb.dsinit", nil)
        _ = try await h.messages(1)
        let session = try #require(h.bridge.session(token: welcome["token"]?.stringValue ?? ""))
        let result = Recorded<Result<JSONValue, JavaScriptCallError>?>(nil)
        session.callHandler("missing") { r in result.update { $0 = r } }
        let invoke = try await h.messages(1)[0]
        h.call(2, "_dsb.returnValue", ["id": invoke["callbackId"] ?? .null, "error": "no handler missing"])
        #expect(await h.eventually { result.current != nil })
        #expect(result.current == .failure(.call(.javaScript("no handler missing"))))
    }
}

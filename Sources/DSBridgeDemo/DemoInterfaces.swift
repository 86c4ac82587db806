// SPDX-License-Identifier: MIT
import DSBridge

/// The interfaces of DSBridge's own demo (PROTOCOL.md 8), so its demo pages run unchanged,
/// plus two test helpers, the WebViewJavascriptBridge handlers and the script message
/// handlers of PROTOCOL.md 9.3, and the bridge components of PROTOCOL.md 9.4.
/// `register(on:)` adds them all.
public enum DemoInterfaces {
    /// Registers every demo interface and handler on `bridge`; `tickMs` paces `callProgress`.
    public static func register(on bridge: Bridge, tickMs: Int = 1000) {
        bridge.addInterface(DemoAPI(tickMs: tickMs))
        bridge.addInterface(SwiftDemoAPI(), by: "swift")
        bridge.addInterface(EchoAPI(), by: "echo")
        bridge.addInterface(TestAPI(), by: "test")
        WVJBDemoHandlers.register(on: bridge)
        DemoScriptMessageHandlers.register(on: bridge)
        DemoBridgeComponents.register(on: bridge)
    }
}

/// DSBridge's `JsApiTest` (no namespace).
@Exposed
public struct DemoAPI: Sendable {
    /// Milliseconds between `callProgress` values.
    public let tickMs: Int

    public init(tickMs: Int) {
        self.tickMs = tickMs
    }

    @nonblocking @idempotent
    func testSyn(_ message: String) -> String {
        message + "[ syn call]"
    }

    @nonblocking @idempotent
    func testAsyn(_ message: String, handler: (String, Bool) -> Void) {
        handler(message + " [ asyn call]", true)
    }

    @nonblocking @idempotent
    func testNoArgSyn() -> String {
        "testNoArgSyn called [ syn call]"
    }

    @nonblocking @idempotent
    func testNoArgAsyn(handler: (String, Bool) -> Void) {
        handler("testNoArgAsyn called [ asyn call]", true)
    }

    /// 10, 9, ... 1 as progress, one per tick, then 0 as the final value.
    func callProgress(handler: @escaping @Sendable (Int, Bool) -> Void) {
        let tick = tickMs
        Task {
            for value in stride(from: 10, through: 0, by: -1) {
                try? await Task.sleep(for: .milliseconds(tick))
                handler(value, value == 0)
            }
        }
    }
}

/// DSBridge's `JsApiTestSwift` (namespace `swift`).
@Exposed
public struct SwiftDemoAPI: Sendable {
    public init() {}

    @nonblocking @idempotent
    func testSyn(_ arg: String) -> String {
        arg + "[Swift sync call:test]"
    }

    @nonblocking @idempotent
    func testAsyn(_ arg: String, handler: (String, Bool) -> Void) {
        handler(arg + "[Swift async call:test]", true)
    }
}

/// DSBridge's `JsEchoApi` (namespace `echo`): any JSON back, unchanged. The demo's methods
/// have no effect beyond their answers, so they are `@idempotent` (in cluster mode they run
/// without waiting for their acceptance's journal write); `test.echo` and `test.record`
/// are not, and take the exactly-once path.
@Exposed
public struct EchoAPI: Sendable {
    public init() {}

    @nonblocking @idempotent
    func syn(_ value: JSONValue) -> JSONValue {
        value
    }

    @nonblocking @idempotent
    func asyn(_ value: JSONValue, handler: (JSONValue) -> Void) {
        handler(value)
    }
}

// SPDX-License-Identifier: MIT
import DSBridge

/// The WebViewJavascriptBridge handlers of the original's example app and tests
/// (PROTOCOL.md 9.3), so `Example Apps/ExampleApp.html` and
/// `Tests/WebViewJavascriptBridgeTests/echo.html` run unchanged but for their script tag.
public enum WVJBDemoHandlers {
    /// What `testObjcCallback` responds (the example app's `ObjC received …` handler).
    public static let testObjcCallbackResponse = "Response from testObjcCallback"

    /// Registers `testObjcCallback`, `echoHandler`, `objcEchoToJs` and `ObjC Echo` on `bridge`.
    public static func register(on bridge: Bridge) {
        bridge.registerHandler("testObjcCallback") { _, responseCallback in
            responseCallback(testObjcCallbackResponse)
        }
        for name in ["echoHandler", "objcEchoToJs", "ObjC Echo"] {
            bridge.registerHandler(name) { data, responseCallback in
                responseCallback(data)
            }
        }
    }
}

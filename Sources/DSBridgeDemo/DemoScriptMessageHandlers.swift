// SPDX-License-Identifier: MIT
import DSBridge
import Logging

/// The script message handlers of PROTOCOL.md 9.3 (`--demo`), the shapes apps written for
/// WKWebView use: `echo`, `wadInterface` (a request with a callback id, answered by calling
/// `wadInterface.fromNative` on the page) and `nativeApp` (a reply, and for `{"name":
/// "hello"}` a call of `bridge.sayHello()`, as Turbo Native apps do).
public enum DemoScriptMessageHandlers {
    /// Registers `echo`, `wadInterface` and `nativeApp` on `bridge`.
    public static func register(on bridge: Bridge) {
        bridge.addScriptMessageHandler(name: "echo") { message in message.body }
        bridge.addScriptMessageHandler(WadInterfaceHandler(logger: bridge.logger), name: "wadInterface")
        bridge.addScriptMessageHandler(NativeAppHandler(logger: bridge.logger), name: "nativeApp")
    }
}

/// `wadInterface`: for `{"callbackId": ID, "action": A, "actionArgs": X}` replies `null`,
/// then calls `wadInterface.fromNative(ID, true, X)` on the page when A is `"echo"`, else
/// `wadInterface.fromNative(ID, false, {"error": "unknown action"})`.
struct WadInterfaceHandler: ScriptMessageHandlerWithReply {
    let logger: Logger

    func userContentController(_ bridge: Bridge, didReceive message: ScriptMessage) async throws -> JSONValue? {
        guard case .object(let body) = message.body, let callbackId = body["callbackId"] else {
            throw DemoHandlerError(text: "wadInterface needs {\"callbackId\": ID, \"action\": string, \"actionArgs\": any}")
        }
        let ok = body["action"] == "echo"
        let answer: JSONValue = ok ? body["actionArgs"] ?? .null : ["error": "unknown action"]
        // The reply goes out when this returns; the page call is made apart from it (the
        // page's promise must not wait for the page itself).
        let session = message.session
        let logger = logger
        Task {
            do {
                try await session.callFunction("wadInterface.fromNative", callbackId, .bool(ok), answer)
            } catch {
                logger.debug("wadInterface.fromNative failed: \(error)", metadata: ["bridge.session": "\(session.id)"])
            }
        }
        return nil
    }
}

/// `nativeApp`: replies `{"received": BODY}`; for `{"name": "hello"}` also calls
/// `bridge.sayHello()` on the page.
struct NativeAppHandler: ScriptMessageHandlerWithReply {
    let logger: Logger

    func userContentController(_ bridge: Bridge, didReceive message: ScriptMessage) async throws -> JSONValue? {
        if message.body["name"] == "hello" {
            let session = message.session
            let logger = logger
            Task {
                do {
                    try await session.callFunction("bridge.sayHello")
                } catch {
                    logger.debug("bridge.sayHello failed: \(error)", metadata: ["bridge.session": "\(session.id)"])
                }
            }
        }
        return ["received": message.body]
    }
}

/// A demo handler refused a message; the page's promise rejects with this text.
struct DemoHandlerError: Error, CustomStringConvertible {
    let text: String
    var description: String { text }
}

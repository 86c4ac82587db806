// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Synchronization

/// A page without a browser: it registers DSBridge's demo handlers (reference 3.2) and
/// answers every `invoke` with `_dsb.returnValue` calls, on its own thread.
final class ScriptedPage: @unchecked Sendable {
    // @unchecked: `ws` and `nextID` are used only by the page's own thread after `start`.
    let ws: TestWebSocket
    let welcome: JSONValue
    private var nextID: Int64 = 1
    private let stopped = Atomic<Bool>(false)
    let invokesSeen = Mutex<[JSONValue]>([])

    init(port: Int) throws {
        ws = try TestWebSocket(port: port)
        welcome = try ws.hello()
    }

    var sessionID: String { welcome["session"]?.stringValue ?? "" }

    /// What a registered JavaScript method answers: progress values, then a final value
    /// (`nil` = not registered, answered with an error).
    static func answers(_ method: String, _ args: [JSONValue]) -> (progress: [JSONValue], final: JSONValue)? {
        func int(_ i: Int) -> Int64 { args.indices.contains(i) ? args[i].integerValue ?? 0 : 0 }
        switch method {
        case "addValue", "syn.addValue", "asyn.addValue": return ([], .integer(int(0) + int(1)))
        case "append": return ([], .string(args.compactMap(\.stringValue).joined(separator: " ")))
        case "startTimer": return ([0, 1, 2, 3, 4], 5)
        case "syn.getInfo": return ([], ["tag": "syn", "value": 8])
        case "asyn.getInfo": return ([], ["tag": "asyn", "value": 8])
        case "_hasJavascriptMethod":
            return ([], .bool(DemoRowsFixture.handlerNames.contains(args.first?.stringValue ?? "")))
        default: return nil
        }
    }

    /// Says the page is ready (`_dsb.dsinit`) and starts answering on a thread.
    func start(dsinit: Bool = true) {
        if dsinit { try? send("_dsb.dsinit", nil) }
        Thread.detachNewThread { [self] in
            ws.socket.setTimeout(0.2)
            while !stopped.load(ordering: .relaxed) {
                guard let m = try? ws.nextMessage() else { continue }
                guard m["t"] == "invoke", let id = m["callbackId"] else { continue }
                invokesSeen.withLock { $0.append(m) }
                let method = m["method"]?.stringValue ?? ""
                guard let (progress, final) = Self.answers(method, m["args"]?.arrayValue ?? []) else {
                    try? send("_dsb.returnValue", ["id": id, "complete": true, "error": .string("\(method) is not registered")])
                    continue
                }
                for p in progress { try? send("_dsb.returnValue", ["id": id, "data": p, "complete": false]) }
                try? send("_dsb.returnValue", ["id": id, "data": final, "complete": true])
            }
        }
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    /// Sends a call with the page's next id (from the test's thread only before ``start(dsinit:)``).
    func send(_ method: String, _ data: JSONValue?) throws {
        try ws.send(callMessage(nextID, method, data))
        nextID += 1
    }
}

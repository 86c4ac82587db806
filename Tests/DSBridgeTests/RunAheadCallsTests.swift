// SPDX-License-Identifier: MIT
import Testing
@testable import DSBridge

@Suite("Calls that run before their acceptance is journaled")
struct RunAheadCallsTests {
    /// Resolves methods as a bridge does (no interfaces needed: only `_dsb.*` may run ahead).
    private let registry = InterfaceRegistry()

    /// A call whose `arg` is `{"data": data}`, as pages send it.
    private func call(_ method: String, _ data: JSONValue?) -> PageMessage.Call {
        PageMessage.Call(id: 1, method: method, arg: data.map { ["data": $0] })
    }

    @Test("final answers to native calls run ahead; progress answers and malformed ones do not")
    func answers() {
        #expect(RunAheadCalls.allowed(call("_dsb.returnValue", ["id": 1, "data": "x", "complete": true]), in: registry))
        #expect(RunAheadCalls.allowed(call("_dsb.returnValue", ["id": 1, "data": "x"]), in: registry), "complete defaults to true")
        #expect(RunAheadCalls.allowed(call("_dsb.returnValue", ["id": 1, "complete": false, "error": "boom"]), in: registry))
        #expect(!RunAheadCalls.allowed(call("_dsb.returnValue", ["id": 1, "data": "x", "complete": false]), in: registry))
        #expect(!RunAheadCalls.allowed(call("_dsb.returnValue", ["data": "x"]), in: registry))
        #expect(!RunAheadCalls.allowed(call("_dsb.returnValue", [1]), in: registry))
        #expect(!RunAheadCalls.allowed(call("_dsb.returnValue", nil), in: registry))
        let asText = PageMessage.Call(id: 1, method: "_dsb.returnValue", arg: .string(#"{"data":{"id":1,"data":"x"}}"#))
        #expect(RunAheadCalls.allowed(asText, in: registry), "arg as a JSON string, as DSBridge's own pages send it")
        #expect(!RunAheadCalls.allowed(PageMessage.Call(id: 1, method: "_dsb.returnValue", arg: ["id": 1, "complete": true]), in: registry), "no data member")
    }

    @Test("the arg as it arrives (spaces, null error, members in any order) is read like the parsed value")
    func rawText() {
        func raw(_ text: String) -> Bool {
            RunAheadCalls.allowed(PageMessage.Call(id: 1, method: "_dsb.returnValue", rawArg: RawJSON(checked: Array(text.utf8)[...])), in: registry)
        }
        #expect(!raw(#"{ "data" : { "complete" : false , "id" : 1 } }"#))
        #expect(!raw(#"{"data":{"id":1,"complete":false,"error":null}}"#))
        #expect(raw(#"{"data":{"id":1,"complete":false,"error":"x"}}"#))
        #expect(raw(#"{"_dscbstub":"s","data":{"data":[1,{"complete":false}],"id":1}}"#), "a nested complete is the value's")
        #expect(!raw(#"{"data":{"id":1,"complete":true,"complete":false}}"#), "the last of repeated members counts, as when parsed")
        #expect(!raw(#"{"data":"{\"id\":1}"}"#), "data must be an object")
    }

    @Test("calls that change nothing run ahead; dsinit, closePage and the application's methods wait")
    func otherMethods() {
        #expect(RunAheadCalls.allowed(call("_dsb.hasNativeMethod", ["name": "echo.syn"]), in: registry))
        #expect(RunAheadCalls.allowed(call("_dsb.disableJavascriptDialogBlock", nil), in: registry))
        #expect(!RunAheadCalls.allowed(call("_dsb.dsinit", nil), in: registry))
        #expect(!RunAheadCalls.allowed(call("_dsb.closePage", nil), in: registry))
        #expect(!RunAheadCalls.allowed(call("echo.syn", 1), in: registry))
        #expect(!RunAheadCalls.allowed(call("returnValue", ["id": 1]), in: registry))
    }

    @Test("calls of methods their interface marks @idempotent run ahead; unknown methods wait")
    func idempotentMethods() {
        let registry = InterfaceRegistry()
        registry.addInterface(ProbeInterface(), by: "p")
        #expect(RunAheadCalls.allowed(call("p.same", 1), in: registry))
        #expect(!RunAheadCalls.allowed(call("p.record", 1), in: registry))
        #expect(!RunAheadCalls.allowed(call("p.nope", 1), in: registry))
        #expect(!RunAheadCalls.allowed([.call(call("p.same", 1)), .call(call("p.record", 2))][...], in: registry))
    }

    @Test("a frame runs ahead only when every call in it may")
    func frames() {
        let final = PageMessage.call(call("_dsb.returnValue", ["id": 1, "data": "x"]))
        let user = PageMessage.call(call("echo.syn", 1))
        #expect(RunAheadCalls.allowed([final, .ack(seq: 3)][...], in: registry))
        #expect(!RunAheadCalls.allowed([final, user][...], in: registry))
        #expect(!RunAheadCalls.allowed([PageMessage.ack(seq: 3)][...], in: registry), "no call: nothing to run ahead")
    }
}

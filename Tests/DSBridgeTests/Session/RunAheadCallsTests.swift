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

    @Test("every answer to a native call runs ahead, progress ones too (issue 48: their origin drops one passed twice)")
    func answers() {
        #expect(RunAheadCalls.allowed(call("_dsb.returnValue", ["id": 1, "data": "x", "complete": true]), in: registry))
        #expect(RunAheadCalls.allowed(call("_dsb.returnValue", ["id": 1, "data": "x"]), in: registry), "complete defaults to true")
        #expect(RunAheadCalls.allowed(call("_dsb.returnValue", ["id": 1, "complete": false, "error": "boom"]), in: registry))
        #expect(RunAheadCalls.allowed(call("_dsb.returnValue", ["id": 1, "data": "x", "complete": false]), in: registry))
        #expect(RunAheadCalls.allowed(call("_dsb.returnValue", ["data": "x"]), in: registry), "a malformed one changes nothing")
    }

    @Test("an answer is read from the arg as it arrives: object or JSON text, spaces, null error, the last of repeated members")
    func answerText() {
        func read(_ text: String) -> ReturnValueAnswer? {
            ReturnValueAnswer(rawArgument: RawJSON(checked: Array(text.utf8)[...]))
        }
        #expect(read(#"{ "data" : { "complete" : false , "id" : 1, "data": 7 } }"#) == .init(callbackId: 1, event: .progress(7)))
        #expect(read(#"{"data":{"id":1,"complete":false,"error":null}}"#) == .init(callbackId: 1, event: .progress(.null)))
        #expect(read(#"{"data":{"id":2,"complete":false,"error":"x"}}"#) == .init(callbackId: 2, event: .failed(.javaScript("x"))))
        #expect(read(#"{"data":{"id":3,"data":"v"}}"#) == .init(callbackId: 3, event: .completed("v")), "complete defaults to true")
        #expect(read(#"{"data":{"id":1,"complete":true,"complete":false}}"#)?.isFinal == false, "the last of repeated members counts")
        #expect(read(#""{\"data\":{\"id\":4,\"data\":1}}""#) == .init(callbackId: 4, event: .completed(1)), "the arg as JSON text")
        #expect(read(#"{"data":"{\"id\":1}"}"#) == nil, "data must be an object")
        #expect(read(#"{"data":{"data":1}}"#) == nil, "no id")
        #expect(read(#"{"data":[1]}"#) == nil)
        #expect(ReturnValueAnswer(rawArgument: nil) == nil)
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

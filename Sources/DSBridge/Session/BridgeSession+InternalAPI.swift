// SPDX-License-Identifier: MIT

/// The bridge's own methods under `_dsb` (PROTOCOL.md 5), and the page's readiness.
extension BridgeSession {
    /// `callID`: the page's socket call (`nil`: a sync HTTP call).
    func runInternal(_ method: InternalMethod, _ data: JSONValue, callID: Int64? = nil, site: CallSite) -> Result<JSONValue, CallFailure> {
        switch method {
        case .dsinit:
            markReady(site: site)
            return .success(.string(""))
        case .disableJavascriptDialogBlock:
            return .success(.string(""))
        case .hasNativeMethod:
            guard case .object(let o) = data, case .string(let name)? = o["name"] else {
                return .failure(CallFailure(.badArgument, "hasNativeMethod needs {\"name\": string, \"type\": \"all\"|\"syn\"|\"asyn\"}"))
            }
            return .success(.bool(CallRoute.hasNativeMethod(name, type: o["type"]?.stringValue, in: bridge.registry)))
        case .closePage:
            site.runApplicationCode(on: bridge.executor) { [self] in bridge.lifecycle.dismissed?(self) }
            return .success(.string(""))
        case .returnValue:
            return receiveReturnValue(data, callID: callID, site: site)
        }
    }

    /// The page is ready: the held invokes go out in order, then the `ready` hook and the
    /// ``whenReady(_:)`` bodies run (on a worker when `site` is the network thread).
    func markReady(site: CallSite) {
        guard let readiness = transition({ $0.markReady() }) else { return }
        for (callbackId, appended) in readiness.released { carryOut(invoke: callbackId, appended, site: site) }
        if readiness.registerJournal { bridge.journal?.sessionNeedsWrite(self) }
        site.runApplicationCode(on: bridge.executor) { [self] in
            bridge.sessionBecameReady(self)
            for body in readiness.waiters { body() }
        }
    }

    /// Runs `body` once the page is ready (`_dsb.dsinit`): at once, on the caller's thread,
    /// when it already is; otherwise right after the held calls were released, on the
    /// thread that processed `dsinit`. Never runs when the session ends first.
    public func whenReady(_ body: @escaping @Sendable (BridgeSession) -> Void) {
        let when = transition { $0.whenReady({ [unowned self] in body(self) }) }
        if when == .now { body(self) }
    }

    /// A page's answer to a native call. In a cluster, the journal passes an answer for a
    /// call made on another node with the write of its acceptance (the run only updates the
    /// session's calls); an answer for a call made here is delivered once per page call
    /// (``NativeCallOrigins/admit(ref:pageCall:)``: the page may send it again to the node it
    /// resumes on, which passes it back here).
    private func receiveReturnValue(_ data: JSONValue, callID: Int64?, site: CallSite) -> Result<JSONValue, CallFailure> {
        guard let answer = ReturnValueAnswer(data) else {
            return .failure(CallFailure(.badArgument, "returnValue needs {\"id\": integer, \"data\": ..., \"complete\": bool}"))
        }
        let localNode = bridge.journal?.nodeID
        let (found, passed, origin, register) = transition { s in
            let origin = s.journal?.records.nativeOrigins[answer.callbackId]
            return (
                s.nativeCallReceiver(answer.callbackId, final: answer.isFinal), s.takeAnswerPassedByJournal(callID), origin,
                s.journalNeedsRegistration()
            )
        }
        if register { bridge.journal?.sessionNeedsWrite(self) }
        guard let receiver = found, !passed else { return .success(.string("")) }
        if let callID, let origin = origin.flatMap(CallOrigin.init(parsing:)), origin.node == localNode,
            !bridge.nativeCallOrigins.admit(ref: origin.ref, pageCall: callID)
        {
            return .success(.string(""))
        }
        deliver(answer.event, to: receiver.handler, site: site, inline: receiver.answersInline)
        return .success(.string(""))
    }

    /// Runs a handler of a native-initiated call with the page's answer, answers in the
    /// order the page gave them. Handlers are application code, so the network thread
    /// queues them for a worker (``Bridge/runDeferredWork()`` starts one job per pass of the
    /// transport's loop); a worker runs one at once unless earlier answers still wait.
    /// `inline`: the handler runs no application code (a cluster's forwarder), so the
    /// network thread may run it too (one hand-off less per answer).
    private func deliver(_ event: NativeCallEvent, to handler: @escaping NativeCallHandler, site: CallSite, inline: Bool) {
        switch transition({ $0.deliver(event, to: handler, callerMayRun: inline || !site.isNetworkThread) }) {
        case .caller: handler(event)
        case .runningWorker: break
        case .newWorker:
            if site.isNetworkThread {
                bridge.deferAnswerDelivery(for: self)
            } else {
                bridge.executor.execute { self.deliverQueuedAnswers() }
            }
        }
    }

    /// Runs the queued handlers of page answers, in order (one worker at a time).
    func deliverQueuedAnswers() {
        while true {
            // Everything queued at once: one lock per burst, so the network thread (which
            // queues under the same lock) rarely waits for this worker.
            let batch = transition { $0.takeAnswers() }
            if batch.isEmpty { return }
            for (handler, event) in batch { handler(event) }
        }
    }
}

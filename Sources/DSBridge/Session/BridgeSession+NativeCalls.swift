// SPDX-License-Identifier: MIT

/// Calls from native code to the page's JavaScript (PROTOCOL.md 3).
extension BridgeSession {
    /// Calls the JavaScript method `method` registered by the page with `args`. The call
    /// is held until the page is ready (`_dsb.dsinit`), then sent in order. `handler`
    /// receives progress values, then exactly one final event.
    /// - Parameter timeout: fail with ``NativeCallError/timeout`` when no final answer came
    ///   in this time (`nil` = wait until the session ends).
    /// - Returns: the call's `callbackId`, or `nil` when the session has ended or the
    ///   `invoke` alone would exceed `replayMaxBytes` (the handler then got
    ///   ``NativeCallError/tooLarge(bytes:)`` at once; no `callbackId` was used).
    /// - Parameter trace: with tracing on, the call's `invoke` span continues this trace.
    @discardableResult
    public func callJavaScript(
        _ method: String, args: [JSONValue] = [], timeout: Duration? = nil, trace: TraceContext? = nil,
        handler: @escaping NativeCallHandler
    ) -> Int64? {
        callJavaScript(method, args: args, timeout: timeout, origin: nil, trace: trace, handler: handler)
    }

    /// ``callJavaScript(_:args:timeout:handler:)`` on behalf of another node (cluster mode):
    /// `origin` (`NODE|REF`) is where the page's answers go if the session moves; `handler`
    /// passes them there meanwhile. `nil`: the call is this node's own.
    /// `answersInline`: `handler` never blocks and runs no application code (it passes the
    /// answers on), so the thread that reads the page's answer runs it.
    @discardableResult
    package func callJavaScript(
        _ method: String, args: [JSONValue], timeout: Duration?, origin: String?, answersInline: Bool = false,
        trace: TraceContext? = nil, handler: @escaping NativeCallHandler
    ) -> Int64? {
        callJavaScript(
            method, invoke: EncodedInvoke(method: method, args: args), requestBytes: { JSONWriter.bytes(.array(args)).count },
            timeout: timeout, origin: origin, answersInline: answersInline, trace: trace, handler: handler)
    }

    /// ``callJavaScript(_:args:timeout:origin:answersInline:trace:handler:)`` with `args`
    /// as the checked text of a JSON array (a call another node sent), written to the page
    /// as it is.
    @discardableResult
    package func callJavaScript(
        _ method: String, args: RawJSON, timeout: Duration?, origin: String?, answersInline: Bool = false,
        trace: TraceContext? = nil, handler: @escaping NativeCallHandler
    ) -> Int64? {
        callJavaScript(
            method, invoke: EncodedInvoke(method: method, args: args), requestBytes: { args.bytes.count },
            timeout: timeout, origin: origin, answersInline: answersInline, trace: trace, handler: handler)
    }

    /// Starts the native call `invoke` (of `method`); `requestBytes` measures its arguments
    /// for a span (tracing on).
    private func callJavaScript(
        _ method: String, invoke: EncodedInvoke, requestBytes: () -> Int, timeout: Duration?, origin: String?,
        answersInline: Bool, trace: TraceContext?, handler: @escaping NativeCallHandler
    ) -> Int64? {
        let metrics = bridge.metrics
        // Tracing on: the call's span runs from here to its final event.
        let span = bridge.callSpans.map { sink in
            (
                sink,
                NativeCallSpan(
                    session: id, method: method, outcome: "", startNanoseconds: wallClockNanoseconds(), endNanoseconds: 0,
                    requestBytes: requestBytes(), traceparent: trace?.traceparent)
            )
        }
        let callTimeout = timeout.map { _ in NativeCallTimeout() }
        var handler: NativeCallHandler = { event in
            guard let outcome = NativeCallOutcome(event) else { return handler(event) }
            metrics.nativeCall(outcome: outcome)
            callTimeout?.callEnded()
            if let (sink, started) = span {
                var ended = started
                ended.outcome = outcome.rawValue
                ended.endNanoseconds = wallClockNanoseconds()
                if case .completed(let value) = event { ended.responseBytes = JSONWriter.bytes(value).count }
                sink.nativeCallEnded(ended)
            }
            handler(event)
        }
        // The arguments are encoded here, off the lock; numbering and queueing happen under
        // one lock, so invokes go out in the order made.
        // Cluster mode: a call of this node's own is kept by number, so that the page's
        // answers find it again through whichever node owns the session later.
        var origin = origin
        var localRef: Int64?
        if origin == nil, let journal = bridge.journal {
            let registered = bridge.nativeCallOrigins.register(handler)
            handler = registered.handler
            localRef = registered.ref
            origin = "\(journal.nodeID)|\(registered.ref)"
        }
        let callbackId: Int64
        let start = transition { [handler] in $0.startNativeCall(invoke, origin: origin, answersInline: answersInline, handler: handler) }
        switch start {
        case .ended:
            handler(.failed(.sessionEnded))
            return nil
        case .tooLarge(let bytes):
            handler(.failed(.tooLarge(bytes: bytes)))
            return nil
        case .queued(let id, let appended):
            callbackId = id
            // The deadline is set before the invoke can go out: once a page (or a test) sees
            // the invoke, its timeout is already running.
            if let timeout {
                let ms = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
                let origins = bridge.nativeCallOrigins
                let work = bridge.executor.scheduleCancellable(afterMilliseconds: ms) { [weak self, localRef] in
                    self?.abandonJavaScriptCall(callbackId, reason: .timeout)
                    // The session may have moved away: the handler is kept by number.
                    if let localRef { origins.deliver(ref: localRef, .failed(.timeout)) }
                }
                callTimeout?.scheduled(work)
            }
            carryOut(invoke: callbackId, appended, site: .worker)
        }
        return callbackId
    }

    /// Stops waiting for the native-initiated call `callbackId`: its handler gets `reason`
    /// (if it was still waiting) and later answers from the page are ignored.
    public func abandonJavaScriptCall(_ callbackId: Int64, reason: NativeCallError) {
        let (handler, register) = transition { ($0.abandonNativeCall(callbackId), $0.journalNeedsRegistration()) }
        if register { bridge.journal?.sessionNeedsWrite(self) }
        handler?(.failed(reason))
    }

    /// Carries out the queueing of invoke `callbackId`; one too large fails its handler.
    func carryOut(invoke callbackId: Int64, _ appended: SessionState<BridgeConnection>.Appended, site: CallSite) {
        carryOut(appended, site: site)
        guard case .messageTooLarge(let bytes)? = appended.error else { return }
        let (found, register) = transition { ($0.nativeCallReceiver(callbackId, final: true)?.handler, $0.journalNeedsRegistration()) }
        if register { bridge.journal?.sessionNeedsWrite(self) }
        if let handler = found {
            site.runApplicationCode(on: bridge.executor) { handler(.failed(.tooLarge(bytes: bytes))) }
        }
    }
}

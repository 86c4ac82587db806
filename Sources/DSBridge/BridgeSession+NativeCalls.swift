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
    @discardableResult
    public func callJavaScript(
        _ method: String, args: [JSONValue] = [], timeout: Duration? = nil, handler: @escaping NativeCallHandler
    ) -> Int64? {
        let metrics = bridge.metrics
        let handler: NativeCallHandler = { event in
            switch event {
            case .progress: break
            case .completed: metrics.nativeCall(outcome: "completed")
            case .failed(.javaScript): metrics.nativeCall(outcome: "failed")
            case .failed(.timeout): metrics.nativeCall(outcome: "timeout")
            case .failed(.sessionEnded): metrics.nativeCall(outcome: "sessionEnded")
            case .failed(.tooLarge): metrics.nativeCall(outcome: "tooLarge")
            }
            handler(event)
        }
        // The arguments are encoded here, off the lock; numbering and queueing happen under
        // one lock, so invokes go out in the order made.
        let invoke = EncodedInvoke(method: method, args: args)
        let callbackId: Int64
        switch state.withLock({ $0.startNativeCall(invoke, handler: handler) }) {
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
                bridge.executor.schedule(afterMilliseconds: ms) { [weak self] in
                    self?.abandonJavaScriptCall(callbackId, reason: .timeout)
                }
            }
            carryOut(invoke: callbackId, appended, site: .worker)
        }
        return callbackId
    }

    /// Stops waiting for the native-initiated call `callbackId`: its handler gets `reason`
    /// (if it was still waiting) and later answers from the page are ignored.
    public func abandonJavaScriptCall(_ callbackId: Int64, reason: NativeCallError) {
        state.withLock { $0.abandonNativeCall(callbackId) }?(.failed(reason))
    }

    /// Carries out the queueing of invoke `callbackId`; one too large fails its handler.
    func carryOut(invoke callbackId: Int64, _ appended: SessionState<BridgeConnection>.Appended, site: CallSite) {
        carryOut(appended, site: site)
        if case .messageTooLarge(let bytes)? = appended.error,
            let handler = state.withLock({ $0.nativeCallHandler(callbackId, final: true) })
        {
            site.runApplicationCode(on: bridge.executor) { handler(.failed(.tooLarge(bytes: bytes))) }
        }
    }
}

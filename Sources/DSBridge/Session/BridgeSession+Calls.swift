// SPDX-License-Identifier: MIT
import Foundation

/// Calls from the page to native methods (PROTOCOL.md 2.2, 2.3).
extension BridgeSession {
    /// Runs a socket call (in arrival order; called from the connection's processing).
    /// `site`: which thread runs it; on the network thread (``InlineDispatchPolicy``) its
    /// `route` may be resolved already.
    /// The call is `messages[index]` (anything else is ignored): its fields are read there in place.
    func receiveCall(
        in messages: borrowing ArraySlice<PageMessage>, at index: Int, from connection: BridgeConnection, site: CallSite = .worker,
        route: consuming Result<CallRoute, CallFailure>? = nil, startedNanoseconds: UInt64? = nil
    ) {
        guard let id = messages[index].callID, let method = messages[index].callMethod, let arg = messages[index].callArgument
        else { return }
        let accepted = transition { $0.acceptCallNotingWaiters(id: id) }
        guard accepted.runs else { return }
        run(
            method: method, arg: arg, reply: .socket(id), site: site, resolved: route, trace: messages[index].callTrace,
            startedNanoseconds: startedNanoseconds)
        // One session transition fewer per call while no sync call waits (nearly always).
        if accepted.syncCallsWait { markStarted(through: id) }
    }

    /// Runs a socket call that came alone in its frame (``receiveCall(in:at:from:site:route:startedNanoseconds:)``
    /// without a list of messages around it).
    func receiveCall(
        _ call: borrowing PageMessage.Call, from connection: BridgeConnection, site: CallSite,
        route: consuming Result<CallRoute, CallFailure>, startedNanoseconds: UInt64?
    ) {
        let id = call.id
        let accepted = transition { $0.acceptCallNotingWaiters(id: id) }
        guard accepted.runs else { return }
        run(
            method: call.method, arg: .raw(call.rawArg, envelope: call.envelope), reply: .socket(id), site: site, resolved: route,
            trace: call.trace, startedNanoseconds: startedNanoseconds)
        if accepted.syncCallsWait { markStarted(through: id) }
    }

    /// Where a call's answer goes.
    enum Reply: Sendable {
        case socket(Int64)
        case http(@Sendable (Result<JSONValue, CallFailure>) -> Void)

        /// The socket call's id (journaled sessions track it in the run table).
        var callID: Int64? {
            if case .socket(let id) = self { return id }
            return nil
        }

        /// A final message of this call ends its run-table entry.
        var finished: RunChange? { callID.map { RunChange(id: $0, entry: nil) } }

        var transport: PageCallSpan.Transport {
            if case .socket = self { return .socket }
            return .http
        }
    }

    /// Sends a call's answer.
    /// - Returns: `false` when a `ret` too large for the replay bound went out as code -1
    ///   `failed` instead: that is final for the call's stub (PROTOCOL.md 2.3), so no `cb`
    ///   may follow.
    /// `continuing`: the stub whose completions follow a successful answer (journaled
    /// sessions keep the call in their run table until the final one).
    @discardableResult
    func answer(_ reply: Reply, _ result: Result<JSONValue, CallFailure>, continuing stub: String? = nil, site: CallSite) -> Bool {
        switch reply {
        case .socket(let id):
            var entry: RunEntry?
            if let stub, case .success = result { entry = .needsCompletion(stub: stub) }
            if case .messageTooLarge? = send(.ret(id: id, result: result), run: RunChange(id: id, entry: entry), site: site) {
                return false
            }
            return true
        case .http(let respond):
            respond(result)
            return true
        }
    }

    /// - Parameters:
    ///   - trace: the page's trace context, for the call's span (tracing on).
    ///   - startedNanoseconds: when the call started (monotonic clock), if the caller read
    ///     the clock already; else it is read here.
    func run(
        method: String, arg: consuming CallArgument.Wire, reply: Reply, site: CallSite = .worker,
        resolved: consuming Result<CallRoute, CallFailure>? = nil, trace: TraceContext? = nil, startedNanoseconds: UInt64? = nil
    ) {
        let span: OpenPageSpan? = bridge.tracesCalls ? openSpan(method: method, arg: arg, reply: reply, trace: trace) : nil
        let route: CallRoute
        let argument: CallArgument
        do {
            // Moved out, not copied (a route holds an interface and a name).
            if let resolved = consume resolved { route = try resolved.get() } else { route = try bridge.registry.cachedRoute(of: method).route }
            argument = try CallArgument(arg, maxDepth: bridge.configuration.maxDepth)
        } catch {
            logger.debug("call refused: \(error.message)", metadata: ["bridge.session": "\(id)", "bridge.method": "\(method.prefix(100))"])
            // A name no interface has is `unknown` in the metrics (pages choose it freely) but
            // itself in the trace.
            recordCall(
                method: method, outcome: error.kind.rawValue, nanoseconds: nil,
                metricLabel: error.kind == .methodNotFound ? "unknown" : method)
            endSpan(span, outcome: error.kind.rawValue, methodKnown: error.kind != .methodNotFound)
            answer(reply, .failure(error), site: site)
            return
        }
        switch consume route {
        case .internalMethod(let m):
            let result = runInternal(m, argument.data, callID: reply.callID, site: site)
            recordCall(method: method, outcome: Self.outcome(result), nanoseconds: nil)
            endSpan(span, result)
            if answer(reply, result, continuing: argument.stub, site: site), let stub = argument.stub, case .success(let value) = result {
                send(.cb(stub: stub, payload: .value(value, complete: true)), run: reply.finished, site: site)
            }
            if m == .closePage, case .success = result {
                finish(reason: "page closed", closeCode: 1000, dropQueued: false, pageClosed: true, site: site)
            }
        case .synchronous(let source, let name):
            runSynchronous(
                MethodCall(
                    interface: instance(of: source), name: name, label: method, argument: argument, reply: reply, site: site, span: span,
                    startedNanoseconds: startedNanoseconds))
        case .asynchronous(let source, let name):
            runAsynchronous(
                MethodCall(
                    interface: instance(of: source), name: name, label: method, argument: argument, reply: reply, site: site, span: span,
                    startedNanoseconds: startedNanoseconds))
        }
    }

    /// The span of a call starting now (only while a ``CallSpanSink`` is set).
    private func openSpan(method: String, arg: CallArgument.Wire, reply: Reply, trace: TraceContext?) -> OpenPageSpan {
        var requestBytes = 0
        switch arg {
        case .raw(let raw, _): requestBytes = raw?.bytes.count ?? 0
        case .value(let value): requestBytes = value.map { JSONWriter.bytes($0).count } ?? 0
        }
        return OpenPageSpan(
            session: id, method: method, methodKnown: true, transport: reply.transport, startNanoseconds: wallClockNanoseconds(),
            requestBytes: requestBytes, trace: trace)
    }

    /// Reports a call's span as ended (`span` exists only while tracing is on).
    private func endSpan(
        _ span: OpenPageSpan?, outcome: String, asynchronous: Bool = false, result: JSONValue? = nil, methodKnown: Bool? = nil
    ) {
        guard let span, let sink = bridge.callSpans else { return }
        sink.pageCallEnded(span.ended(outcome: outcome, asynchronous: asynchronous, result: result, methodKnown: methodKnown))
    }

    /// ``endSpan(_:outcome:asynchronous:result:)`` of a method that answered `result`.
    private func endSpan(_ span: OpenPageSpan?, _ result: Result<JSONValue, CallFailure>) {
        switch result {
        case .success(let value): endSpan(span, outcome: "ok", result: value)
        case .failure(let failure): endSpan(span, outcome: failure.kind.rawValue)
        }
    }

    /// An async method's span, at the completion `final` if that ends the call.
    private func endSpan(_ span: OpenPageSpan?, final: ServerMessage.CallbackPayload?) {
        guard span != nil, let ending = AsyncCall.ending(of: final) else { return }
        endSpan(span, outcome: ending.outcome, asynchronous: true, result: ending.value)
    }

    /// The interface a call runs on: the shared one, or this session's own instance.
    private func instance(of source: InterfaceSource) -> any ExposedInterface {
        switch source {
        case .shared(let interface):
            return interface
        case .perSession(let factoryID, let make):
            if let existing = transition({ $0.instance(factoryID) }) { return existing }
            let made = make(self)
            return transition { $0.keepInstance(made, factoryID: factoryID) }
        }
    }

    /// Whether this session has made its instance of the per-session interface `factoryID`.
    func hasInstance(factoryID: Int) -> Bool {
        transition { $0.instance(factoryID) != nil }
    }

    /// Counts a page → native call that ended (or was refused): in the metrics, the
    /// session's count, and its trace while the admin page watches it (`metricLabel`: the
    /// method's label in the metrics, when not `method`).
    func recordCall(method: String, outcome: String, nanoseconds: Int64?, metricLabel: String? = nil) {
        // Branches rather than `metricLabel ?? method`, which copies (retains) a string per call.
        if let metricLabel {
            bridge.metrics.call(method: metricLabel, outcome: outcome, nanoseconds: nanoseconds)
        } else {
            bridge.metrics.call(method: method, outcome: outcome, nanoseconds: nanoseconds)
        }
        callCount.add(1, ordering: .relaxed)
        if trace.isWatched(now: { bridge.executor.uptimeMilliseconds }) {
            trace.record(
                CallTrace.Entry(
                    atMs: Int64(wallClockNanoseconds() / 1_000_000), method: String(method.prefix(200)), outcome: outcome,
                    microseconds: nanoseconds.map { $0 / 1000 }))
        }
    }

    static func outcome(_ result: Result<JSONValue, CallFailure>) -> String {
        switch result {
        case .success: return "ok"
        case .failure(let f): return f.kind.rawValue
        }
    }

    /// One call of an interface method, as resolved.
    private struct MethodCall: Sendable {
        let interface: any ExposedInterface
        let name: String
        /// The method as the page named it (metrics, logs).
        let label: String
        let argument: CallArgument
        let reply: Reply
        let site: CallSite
        /// The thread's usage at the start, when the guard checks this run closely.
        let usageBefore: NetworkThreadGuard.Usage?
        /// When it started (monotonic clock, ns): plain integers, where `ContinuousClock`'s
        /// instants and `Duration`s cost 128-bit arithmetic per call.
        let startedNanoseconds: UInt64
        /// Its span while tracing is on.
        let span: OpenPageSpan?

        init(
            interface: any ExposedInterface, name: String, label: String, argument: CallArgument, reply: Reply, site: CallSite,
            span: OpenPageSpan?, startedNanoseconds: UInt64?
        ) {
            self.span = span
            self.interface = interface
            self.name = name
            self.label = label
            self.argument = argument
            self.reply = reply
            self.site = site
            usageBefore = site.networkThreadGuard?.startRun()
            self.startedNanoseconds = startedNanoseconds ?? DispatchTime.now().uptimeNanoseconds
        }

        var elapsedNanoseconds: Int64 {
            Int64(truncatingIfNeeded: DispatchTime.now().uptimeNanoseconds &- startedNanoseconds)
        }
    }

    private func failure(of error: any Error, in call: MethodCall) -> CallFailure {
        if let error = error as? ExposedCallError {
            return CallFailure(error.kind == .badArgument ? .badArgument : .methodNotFound, error.message)
        }
        logger.debug("method threw: \(error)", metadata: ["bridge.session": "\(id)", "bridge.method": "\(call.name)"])
        return CallFailure(.failed, "\(call.name) failed: \(error)")
    }

    /// Runs `body` with ``current`` naming this session: bound here, unless it is bound to
    /// it already (``BridgeConnection/receivingFrames(_:)`` binds it once for the frames of
    /// a read).
    private func asCurrent<T>(_ body: () throws -> T) rethrows -> T {
        if Self.current === self { return try body() }
        return try Self.$current.withValue(self, operation: body)
    }

    private func runSynchronous(_ call: MethodCall) {
        // A method that needs no suspension runs here, on this thread.
        do {
            let value = try asCurrent {
                try call.interface.callSynchronousMethodWithoutSuspending(named: call.name, with: call.argument.data)
            }
            if let value {
                finishSynchronous(call, .success(value), counted: false, site: call.site)
                return
            }
        } catch {
            finishSynchronous(call, .failure(failure(of: error, in: call)), counted: false, site: call.site)
            return
        }
        let counted: Bool
        if case .socket = call.reply {
            counted = true
            let max = bridge.configuration.maxCallsPending
            transition { s in s.pendingCallStarted(maxPending: max)?.setReadsPaused(true) }
        } else {
            counted = false
        }
        Task.immediate { [self] in
            let result: Result<JSONValue, CallFailure>
            do {
                result = .success(
                    try await BridgeSession.$current.withValue(self) {
                        try await call.interface.callSynchronousMethod(named: call.name, with: call.argument.data)
                    })
            } catch {
                result = .failure(failure(of: error, in: call))
            }
            // After a suspension the task may resume anywhere: not on the network thread.
            finishSynchronous(call, result, counted: counted, site: .worker)
        }
    }

    /// Answers a synchronous call; `counted`: it was counted in the pending calls.
    private func finishSynchronous(_ call: MethodCall, _ result: Result<JSONValue, CallFailure>, counted: Bool, site: CallSite) {
        let nanoseconds = call.elapsedNanoseconds
        recordCall(method: call.label, outcome: Self.outcome(result), nanoseconds: nanoseconds)
        endSpan(call.span, result)
        checkNetworkThreadBudget(call, nanoseconds: nanoseconds)
        if answer(call.reply, result, continuing: call.argument.stub, site: site), let stub = call.argument.stub,
            case .success(let value) = result
        {
            send(.cb(stub: stub, payload: .value(value, complete: true)), run: call.reply.finished, site: site)
        }
        if counted {
            let max = bridge.configuration.maxCallsPending
            transition { s in s.pendingCallFinished(maxPending: max)?.setReadsPaused(false) }
        }
    }

    /// A `@nonblocking` method seen blocking or computing for longer than
    /// ``InlineDispatchPolicy/budgetNanoseconds`` on the network thread (repeatedly:
    /// ``NetworkThreadGuard``) runs off it from now on.
    private func checkNetworkThreadBudget(_ call: MethodCall, nanoseconds: Int64) {
        guard let networkThreadGuard = call.site.networkThreadGuard else { return }
        let (demote, blocked) = networkThreadGuard.finishRun(of: call.label, wallNanoseconds: nanoseconds, before: call.usageBefore)
        guard demote, let name = MethodName(call.label) else { return }
        if bridge.registry.demoteNonblocking(name) {
            let why = blocked ? "waited on something" : "computed"
            logger.warning(
                "@nonblocking method \(call.label) \(why) for \(nanoseconds / 1000) µs on the network thread (budget \(InlineDispatchPolicy.budgetNanoseconds / 1000) µs): it runs off the network thread from now on",
                metadata: ["bridge.session": "\(id)"])
        }
    }

    private func runAsynchronous(_ call: MethodCall) {
        // Sync HTTP calls count toward neither bound (PROTOCOL.md 2.4).
        var counted = true
        if case .http = call.reply { counted = false }
        let max = bridge.configuration.maxAsyncCalls
        guard !counted || transition({ $0.admitAsyncCall(max: max) }) else {
            recordCall(method: call.label, outcome: "overloaded", nanoseconds: nil)
            endSpan(call.span, outcome: "overloaded", asynchronous: true)
            answer(call.reply, .failure(CallFailure(.overloaded, "more than \(max) async calls running in this session")), site: call.site)
            return
        }
        var callID: Int64?
        if case .socket(let id) = call.reply, call.argument.stub != nil { callID = id }
        let asyncCall = AsyncCall(stub: call.argument.stub, callID: callID, counted: counted, span: call.span)
        // Completions may come from any thread, later: they are not on the network thread.
        let completion = ExposedCompletion { [self] delivery in
            switch delivery {
            case .value(let value, let complete): route(.value(value, complete: complete), of: asyncCall)
            case .failure(let message): route(.failure(CallFailure(.failed, message)), of: asyncCall)
            }
        }
        let failed: @Sendable (any Error) -> Void = { [self] error in
            let failure = failure(of: error, in: call)
            if error is ExposedCallError, asyncCall.refuseIfStarting(failure) { return }
            route(.failure(failure), of: asyncCall)
        }
        // A method that needs no suspension starts here, on this thread; others in a task.
        var task: Task<Void, Never>?
        do {
            let started = try asCurrent {
                try call.interface.callAsynchronousMethodWithoutSuspending(named: call.name, with: call.argument.data, completion: completion)
            }
            if !started {
                task = Task.immediate { [self] in
                    do {
                        try await BridgeSession.$current.withValue(self) {
                            try await call.interface.callAsynchronousMethod(named: call.name, with: call.argument.data, completion: completion)
                        }
                    } catch {
                        failed(error)
                    }
                }
            }
        } catch {
            failed(error)
        }
        checkNetworkThreadBudget(call, nanoseconds: call.elapsedNanoseconds)
        // The method ran up to its first suspension. A refusal of its argument becomes the
        // call's answer; otherwise the answer is `""`, followed by what it delivered so far.
        switch asyncCall.finishStarting() {
        case .refused(let failure):
            recordCall(method: call.label, outcome: failure.kind.rawValue, nanoseconds: nil)
            endSpan(call.span, outcome: failure.kind.rawValue, asynchronous: true)
            answer(call.reply, .failure(failure), site: call.site)
            transition { $0.asyncCallFinished(callID: nil, counted: counted) }
        case .started(let held, let finished):
            recordCall(method: call.label, outcome: "ok", nanoseconds: nil)
            answer(call.reply, .success(.string("")), continuing: call.argument.stub, site: call.site)
            // Its span ends with the final completion (``AsyncCall/span``).
            if finished { endSpan(call.span, final: held.last) }
            if finished {
                transition { $0.asyncCallFinished(callID: nil, counted: counted) }
            } else if let callID {
                transition { $0.keepCancellable(asyncCall, task: task, callID: callID) }
            }
            for payload in held { forward(payload, of: asyncCall, site: call.site) }
        }
    }

    private func route(_ payload: ServerMessage.CallbackPayload, of call: AsyncCall) {
        switch call.accept(payload) {
        case .held, .ignored:
            return
        case .forward(let final):
            // Its place under maxAsyncCalls is free before the page can see the final
            // completion: a page that calls again on it is not refused.
            if final { transition { $0.asyncCallFinished(callID: call.callID, counted: call.counted) } }
            if final { endSpan(call.span, final: payload) }
            forward(payload, of: call, site: .worker)
        }
    }

    private func forward(_ payload: ServerMessage.CallbackPayload, of call: AsyncCall, site: CallSite) {
        guard let stub = call.stub else { return }  // fire and forget: completions are dropped
        var run: RunChange?
        if let id = call.callID, AsyncCall.isFinal(payload) { run = RunChange(id: id, entry: nil) }
        send(.cb(stub: stub, payload: payload), run: run, site: site)
    }

    /// `cancel` (PROTOCOL.md 2.2): cancels the running async call `callID` (Swift task
    /// cancellation), drops its later completions and ends its stub with `cancelled`.
    /// Anything else is ignored. The task's cancellation handlers are application code:
    /// on the network thread (`site`) they run on a worker.
    func cancel(callID: Int64, site: CallSite = .worker) {
        guard let entry = transition({ $0.cancellableCall(callID) }), entry.call.cancel(), let stub = entry.call.stub else { return }
        if let task = entry.task { site.runApplicationCode(on: bridge.executor) { task.cancel() } }
        endSpan(entry.call.span, outcome: "cancelled", asynchronous: true)
        send(.cb(stub: stub, payload: .cancelled), run: RunChange(id: callID, entry: nil), site: site)
        transition { $0.asyncCallFinished(callID: callID, counted: entry.call.counted) }
    }
}

// SPDX-License-Identifier: MIT

/// Decides which frames from a page the transport's network thread runs itself instead of
/// handing them to a worker thread: saving the two thread hops (there and back) is most of a
/// fast call's latency. Only work that cannot wait on anything qualifies, so the thread that
/// serves every socket is never held up: acknowledgements, cancels, `_dsb.hasNativeMethod`,
/// `_dsb.disableJavascriptDialogBlock`, `_dsb.returnValue` (its handlers go to a worker),
/// and methods marked `@nonblocking` (one seen blocking or computing past
/// ``budgetNanoseconds`` is demoted for good: ``NetworkThreadGuard``). Everything else (a
/// `hello`, the hooks of `dsinit` and `close`, factories making a session's interface)
/// keeps the worker thread.
public enum InlineDispatchPolicy {
    /// Frames larger than this are decoded and run on a worker thread.
    public static let maxFrameBytes = 8 * 1024
    /// How long a `@nonblocking` method may run on the network thread.
    public static let budgetNanoseconds: Int64 = 1_000_000

    /// The resolved route of each call of a frame (by message index) when every message
    /// of the frame may run on the network thread; `nil` when the frame needs a worker.
    static func routes(
        for messages: [PageMessage], session: BridgeSession, registry: InterfaceRegistry
    ) -> InlineRoutes? {
        var routes = InlineRoutes()
        for index in messages.indices {
            if let method = messages[index].callMethod {
                guard let route = route(of: method, session: session, registry: registry) else { return nil }
                routes.append(route, at: index)
            } else if case .hello = messages[index] {
                return nil
            }
            // (An ack or a cancel runs anywhere.)
        }
        return routes
    }

    /// The resolved route of a call of `method` when the network thread may run it (a
    /// failure is answered at once, so it may); `nil` when the call needs a worker.
    static func route(
        of method: String, session: BridgeSession, registry: InterfaceRegistry
    ) -> Result<CallRoute, CallFailure>? {
        let resolved: ResolvedMethod
        do {
            resolved = try registry.cachedRoute(of: method)
        } catch {
            return .failure(error)
        }
        switch resolved.route {
        case .internalMethod(let internalMethod):
            switch internalMethod {
            // returnValue's handlers are application code: the session hands them to a worker.
            case .hasNativeMethod, .disableJavascriptDialogBlock, .returnValue: return .success(resolved.route)
            case .dsinit, .closePage: return nil
            }
        // Matched without binding the source: an interface source is copied through its value
        // witness (it holds an existential), twice a call where it was bound.
        case .synchronous(.shared, _), .asynchronous(.shared, _):
            return resolved.isNonblocking ? .success(resolved.route) : nil
        case .synchronous(.perSession(let factoryID, _), _), .asynchronous(.perSession(let factoryID, _), _):
            return resolved.isNonblocking && session.hasInstance(factoryID: factoryID) ? .success(resolved.route) : nil
        }
    }
}

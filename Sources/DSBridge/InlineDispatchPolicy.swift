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

    /// Whether every message of a frame may run on the network thread.
    static func allows(_ messages: [PageMessage], session: BridgeSession, registry: InterfaceRegistry) -> Bool {
        for message in messages {
            switch message {
            case .ack, .cancel:
                continue
            case .hello:
                return false
            case .call(let call):
                guard allows(call.method, session: session, registry: registry) else { return false }
            }
        }
        return true
    }

    private static func allows(_ method: String, session: BridgeSession, registry: InterfaceRegistry) -> Bool {
        guard let name = MethodName(method) else { return true }  // answered `methodNotFound` at once
        if name.isInternal {
            switch InternalMethod(rawValue: name.name) {
            // returnValue's handlers are application code: the session hands them to a worker.
            case .hasNativeMethod?, .disableJavascriptDialogBlock?, .returnValue?, nil: return true
            case .dsinit?, .closePage?: return false
            }
        }
        guard let source = registry.nonblockingSource(of: name) else {
            // An unknown method is answered `methodNotFound` at once; a known one that is
            // not `@nonblocking` runs on a worker.
            return registry.lookup(name) == nil
        }
        return session.hasInstance(of: source)
    }
}

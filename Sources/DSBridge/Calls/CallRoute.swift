// SPDX-License-Identifier: MIT

/// The `_dsb` methods of the internal API (PROTOCOL.md 5).
public enum InternalMethod: String, Sendable, CaseIterable {
    case dsinit
    case returnValue
    case hasNativeMethod
    case closePage
    case disableJavascriptDialogBlock
}

/// A method name resolved: where its calls go and what its interface declares of it.
struct ResolvedMethod: Sendable {
    let route: CallRoute
    /// `@nonblocking` (and not demoted): the network thread may run it.
    var isNonblocking = false
    /// `@idempotent`: in cluster mode its calls may run before their acceptance is durable.
    var isIdempotent = false
}

/// Where a call goes, decided from its method name before anything runs.
public indirect enum CallRoute: Sendable {
    case internalMethod(InternalMethod)
    case synchronous(InterfaceSource, name: String)
    case asynchronous(InterfaceSource, name: String)

    /// Resolves `method` against `registry`.
    /// - Throws: ``CallFailure`` `methodNotFound` for a malformed name, an unknown
    ///   namespace or method, or an unknown `_dsb` method.
    public static func resolve(_ method: String, in registry: InterfaceRegistry) throws(CallFailure) -> CallRoute {
        try resolveMarkingNonblocking(method, in: registry).route
    }

    /// ``resolve(_:in:)``, also telling whether the method may run on the network thread
    /// (`@nonblocking` and not demoted) and whether it is `@idempotent` (internal methods
    /// say false to both).
    static func resolveMarkingNonblocking(
        _ method: String, in registry: InterfaceRegistry
    ) throws(CallFailure) -> ResolvedMethod {
        guard let name = MethodName(method) else {
            throw CallFailure(.methodNotFound, "\"\(method.prefix(200))\" is not a valid method name")
        }
        if name.isInternal {
            guard let m = InternalMethod(rawValue: name.name) else {
                throw CallFailure(.methodNotFound, "no internal method \"\(name)\"")
            }
            return ResolvedMethod(route: .internalMethod(m))
        }
        if name.isReserved {
            // `_webkit.postMessage` runs like a synchronous interface method and `_wvjb.call`
            // like an asynchronous one (both off the network thread); nothing else of the
            // reserved namespaces is callable from a page.
            if name.isScriptMessage, name.name.utf8.elementsEqual(ScriptMessageDispatch.methodName.utf8) {
                return ResolvedMethod(route: .synchronous(.shared(registry.scriptMessages), name: ScriptMessageDispatch.methodName))
            }
            if name.isWebViewJavascriptBridge, name.name.utf8.elementsEqual(WVJBCallInterface.methodName.utf8) {
                return ResolvedMethod(route: .asynchronous(.shared(registry.webViewJavascriptBridgeCall), name: WVJBCallInterface.methodName))
            }
            if name.isHotwire, SessionComponents.exposedMethods[name.name] != nil {
                return ResolvedMethod(route: .synchronous(SessionComponents.source(registry.bridgeComponents), name: name.name))
            }
            throw CallFailure(.methodNotFound, "no internal method \"\(name)\"")
        }
        // Bound apart, so the interface moves into the route (no extra retain per call).
        guard let (source, kind, isNonblocking, isIdempotent) = registry.resolve(name) else {
            throw CallFailure(.methodNotFound, "no native method \"\(name)\"")
        }
        switch kind {
        case .synchronous:
            return ResolvedMethod(route: .synchronous(source, name: name.name), isNonblocking: isNonblocking, isIdempotent: isIdempotent)
        case .asynchronous:
            return ResolvedMethod(route: .asynchronous(source, name: name.name), isNonblocking: isNonblocking, isIdempotent: isIdempotent)
        }
    }

    /// `_dsb.hasNativeMethod`: whether `method` exists with the asked kind
    /// (`"syn"`, `"asyn"`, anything else = either). `_dsb.*` names count as synchronous.
    public static func hasNativeMethod(_ method: String, type: String?, in registry: InterfaceRegistry) -> Bool {
        guard let route = try? resolve(method, in: registry) else { return false }
        let isSync: Bool
        switch route {
        case .internalMethod, .synchronous: isSync = true
        case .asynchronous: isSync = false
        }
        switch type {
        case "syn": return isSync
        case "asyn": return !isSync
        default: return true
        }
    }
}

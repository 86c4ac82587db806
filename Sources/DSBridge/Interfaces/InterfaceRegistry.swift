// SPDX-License-Identifier: MIT
import Glibc
import Synchronization

/// Where a namespace's interface comes from.
public indirect enum InterfaceSource: Sendable {
    /// One instance for every session.
    case shared(any ExposedInterface)
    /// One instance per session, made on the session's first call into the namespace.
    case perSession(id: Int, make: @Sendable (BridgeSession) -> any ExposedInterface)
}

/// The interfaces pages can call, one per namespace (`""` = no namespace). Safe to use
/// from any thread; changes apply to calls that start afterwards.
public final class InterfaceRegistry: Sendable {
    struct Entry: Sendable {
        let source: InterfaceSource
        let methods: [String: Method]
        /// `@nonblocking` methods still allowed on the network thread.
        var nonblocking: Set<String>

        init(source: InterfaceSource, kind: any ExposedInterface.Type) {
            self.source = source
            let idempotent = kind.idempotentMethods
            methods = kind.exposedMethods.reduce(into: [:]) { table, method in
                table[method.key] = Method(kind: method.value, isIdempotent: idempotent.contains(method.key))
            }
            nonblocking = kind.nonblockingMethods
        }
    }

    /// An exposed method as the registry keeps it: what never changes about it. (Whether it is
    /// `@idempotent` lives here, not in a set beside the table: a look-up copies the entry,
    /// and each table in it costs a retain and a release per call.)
    struct Method: Sendable {
        let kind: ExposedMethodKind
        let isIdempotent: Bool
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let factoryIDs = Atomic<Int>(0)
    private let changes = Atomic<Int>(0)

    /// Moves on whenever what a method name resolves to may have changed (an interface
    /// added or removed, a method demoted from `@nonblocking`): routes cached under an
    /// older generation are resolved again.
    var generation: Int { changes.load(ordering: .acquiring) }

    private func changed() { changes.add(1, ordering: .releasing) }
    /// The routes of the methods called last, by any session.
    private let routeCache = MethodRouteCache()

    /// `method`'s route and what its interface declares of it
    /// (``CallRoute/resolveMarkingNonblocking(_:in:)``), remembered for the next calls.
    func cachedRoute(of method: String) throws(CallFailure) -> ResolvedMethod {
        try routeCache.resolve(method, in: self)
    }
    /// The internal method (`_dsb.*`) `method` names, resolved as dispatch resolves it;
    /// `nil` for any other method (or a name that does not resolve).
    func internalMethod(named method: String) -> InternalMethod? {
        guard case .internalMethod(let internalMethod)? = try? cachedRoute(of: method).route else { return nil }
        return internalMethod
    }
    /// The script message handlers behind `_webkit.postMessage` (PROTOCOL.md 9.2).
    let scriptMessages = ScriptMessageDispatch()
    /// The WebViewJavascriptBridge handlers pages reach through `_wvjb.call` (PROTOCOL.md 9.1).
    public let webViewJavascriptBridgeHandlers: WVJBHandlerRegistry
    /// The internal method `_wvjb.call`, over ``webViewJavascriptBridgeHandlers``.
    let webViewJavascriptBridgeCall: WVJBCallInterface
    /// The bridge component classes pages reach through web/hotwire.js (PROTOCOL.md 9.4).
    public let bridgeComponents = BridgeComponentRegistry()

    public init() {
        let handlers = WVJBHandlerRegistry()
        webViewJavascriptBridgeHandlers = handlers
        webViewJavascriptBridgeCall = WVJBCallInterface(handlers: handlers)
    }

    /// Stops a registration under a namespace the bridge owns (``MethodName/reservedNamespaces``):
    /// a programming error, reported where it is made rather than by calls that would
    /// never reach the interface.
    private static func refuseReserved(_ namespace: String, function: StaticString = #function) {
        precondition(
            !MethodName.isReserved(namespace: namespace),
            "\(function): namespace \"\(namespace)\" is reserved for the bridge (\(MethodName.reservedNamespaces.sorted().joined(separator: ", "))); register the interface under another name"
        )
    }

    /// Registers `interface` under `namespace` (`nil` or `""` = no namespace; multi-level
    /// names such as `"a.b"` are allowed). Re-adding a namespace replaces its interface.
    /// - Precondition: `namespace` is not reserved (`_dsb`, `_wvjb`, `_webkit`, `_page`, `_hotwire`,
    ///   or a name inside one of them); registering there stops the program with a message.
    public func addInterface(_ interface: any ExposedInterface, by namespace: String? = nil) {
        let key = namespace ?? ""
        Self.refuseReserved(key)
        let kind = type(of: interface)
        let entry = Entry(source: .shared(interface), kind: kind)
        entries.withLock { $0[key] = entry }
        changed()
    }

    /// Registers a factory under `namespace`: each session gets its own instance, made by
    /// `make` on its first call into the namespace, so the interface can keep per-page state.
    /// - Precondition: `namespace` is not reserved (as ``addInterface(_:by:)``).
    public func addInterfaceFactory<Interface: ExposedInterface>(
        by namespace: String? = nil, _ make: @escaping @Sendable (BridgeSession) -> Interface
    ) {
        Self.refuseReserved(namespace ?? "")
        let id = factoryIDs.add(1, ordering: .relaxed).newValue
        let entry = Entry(source: .perSession(id: id, make: { make($0) }), kind: Interface.self)
        entries.withLock { $0[namespace ?? ""] = entry }
        changed()
    }

    /// Removes the interface of `namespace` (`nil` or `""` = no namespace).
    public func removeInterface(by namespace: String? = nil) {
        _ = entries.withLock { $0.removeValue(forKey: namespace ?? "") }
        changed()
    }

    /// The interface of `namespace` and the kind of its method `name`, if both exist.
    /// Names match byte for byte: Swift's `String` equality would also match canonically
    /// equivalent spellings (`"\u{212A}"`, the Kelvin sign, for `"K"`).
    package func lookup(_ method: MethodName) -> (source: InterfaceSource, kind: ExposedMethodKind)? {
        resolve(method).map { ($0.source, $0.kind) }
    }

    /// The interface of `method` when it is `@nonblocking` (and was not demoted), else `nil`.
    package func nonblockingSource(of method: MethodName) -> InterfaceSource? {
        guard let found = resolve(method), found.isNonblocking else { return nil }
        return found.source
    }

    /// Everything a call of `method` needs to know, under one lock (byte-exact, as `lookup`).
    func resolve(_ method: MethodName) -> (source: InterfaceSource, kind: ExposedMethodKind, isNonblocking: Bool, isIdempotent: Bool)? {
        entries.withLock { table in
            guard let entryIndex = table.index(forKey: method.namespace),
                Self.sameBytes(table.keys[entryIndex], method.namespace)
            else { return nil }
            let entry = table.values[entryIndex]
            guard let methodIndex = entry.methods.index(forKey: method.name),
                Self.sameBytes(entry.methods.keys[methodIndex], method.name)
            else { return nil }
            // The method table matched the bytes, so `contains` (canonical equality) may decide.
            let found = entry.methods.values[methodIndex]
            return (entry.source, found.kind, entry.nonblocking.contains(method.name), found.isIdempotent)
        }
    }

    /// Whether two strings hold the same UTF-8 bytes (not merely equivalent text).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { pa in
            b.withUTF8 { pb in
                guard pa.count == pb.count else { return false }
                guard let x = pa.baseAddress, let y = pb.baseAddress else { return pa.count == 0 }
                return memcmp(x, y, pa.count) == 0
            }
        }
    }

    /// Stops treating `method` as `@nonblocking` (it overran the network thread's budget).
    /// - Returns: true when it was treated so until now.
    @discardableResult
    package func demoteNonblocking(_ method: MethodName) -> Bool {
        let demoted = entries.withLock { table in
            table[method.namespace]?.nonblocking.remove(method.name) != nil
        }
        if demoted { changed() }
        return demoted
    }

    /// The namespaces that have an interface, sorted.
    public var namespaces: [String] {
        entries.withLock { $0.keys.sorted() }
    }
}

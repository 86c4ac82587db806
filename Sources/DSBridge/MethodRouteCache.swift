// SPDX-License-Identifier: MIT
import Synchronization

/// The route of the method a socket (or session) called last. Pages call few methods, and
/// mostly the same one again: a hit costs one comparison of the method's text (a short name
/// is compared as two words) instead of splitting the name and two table look-ups. An entry
/// counts only under the registry generation it was resolved in, so adding, removing or
/// demoting an interface's methods is seen at the next call.
final class MethodRouteCache: Sendable {
    /// A class: read out of the lock with one retain (a struct copied the method's text and
    /// the route's payload, a retain and a release each, on every call).
    private final class Entry: Sendable {
        let method: String
        let generation: Int
        let route: CallRoute
        let isNonblocking: Bool

        init(method: String, generation: Int, route: CallRoute, isNonblocking: Bool) {
            self.method = method
            self.generation = generation
            self.route = route
            self.isNonblocking = isNonblocking
        }
    }

    private let last = Mutex<Entry?>(nil)

    init() {}

    /// `method`'s route and whether it may run on the network thread, as
    /// ``CallRoute/resolveMarkingNonblocking(_:in:)`` gives it.
    func resolve(_ method: String, in registry: InterfaceRegistry) throws(CallFailure) -> (route: CallRoute, isNonblocking: Bool) {
        let generation = registry.generation
        if let entry = last.withLock({ $0 }), entry.generation == generation, entry.method == method {
            return (entry.route, entry.isNonblocking)
        }
        let resolved = try CallRoute.resolveMarkingNonblocking(method, in: registry)
        last.withLock { $0 = Entry(method: method, generation: generation, route: resolved.route, isNonblocking: resolved.isNonblocking) }
        return resolved
    }
}

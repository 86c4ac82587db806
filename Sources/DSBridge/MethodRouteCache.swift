// SPDX-License-Identifier: MIT
import Synchronization

/// The route of the method a socket (or session) called last. Pages call few methods, and
/// mostly the same one again: a hit costs one comparison of the method's text (a short name
/// is compared as two words) instead of splitting the name and two table look-ups. An entry
/// counts only under the registry generation it was resolved in, so adding, removing or
/// demoting an interface's methods is seen at the next call.
final class MethodRouteCache: Sendable {
    private struct Entry {
        let method: String
        let generation: Int
        let route: CallRoute
        let isNonblocking: Bool
    }

    private let last = Mutex<Entry?>(nil)

    init() {}

    /// `method`'s route and whether it may run on the network thread, as
    /// ``CallRoute/resolveMarkingNonblocking(_:in:)`` gives it.
    func resolve(_ method: String, in registry: InterfaceRegistry) throws(CallFailure) -> (route: CallRoute, isNonblocking: Bool) {
        let generation = registry.generation
        if let hit = last.withLock({ entry -> (CallRoute, Bool)? in
            guard let entry, entry.generation == generation, entry.method == method else { return nil }
            return (entry.route, entry.isNonblocking)
        }) {
            return hit
        }
        let resolved = try CallRoute.resolveMarkingNonblocking(method, in: registry)
        last.withLock { $0 = Entry(method: method, generation: generation, route: resolved.route, isNonblocking: resolved.isNonblocking) }
        return resolved
    }
}

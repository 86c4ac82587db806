// SPDX-License-Identifier: MIT
import Synchronization

/// The routes of the methods called last, shared by every session of a registry. Pages
/// call few methods, and mostly the same ones again: a hit costs a comparison of the
/// method's text with a few entries (a short name is compared as two words) instead of
/// splitting the name and two table look-ups. An entry counts only under the registry
/// generation it was resolved in, so adding, removing or demoting an interface's methods
/// is seen at the next call.
///
/// Shared rather than per session: with thousands of sessions each calling now and then,
/// a session's own cache is cold in the processor's caches at its next call (several
/// memory misses per call), while the shared entries stay warm.
final class MethodRouteCache: Sendable {
    /// A class: read out of the lock with one retain (a struct copied the method's text and
    /// the route's payload, a retain and a release each, on every call).
    private final class Entry: Sendable {
        let method: String
        let generation: Int
        let resolved: ResolvedMethod

        init(method: String, generation: Int, resolved: ResolvedMethod) {
            self.method = method
            self.generation = generation
            self.resolved = resolved
        }
    }

    /// Entries kept; a new method replaces the oldest entry once all are used.
    static let capacity = 8

    private struct Recent {
        var entries: [Entry] = []
        /// The entry replaced next once ``MethodRouteCache/capacity`` are used.
        var oldest = 0
    }

    private let recent = Mutex(Recent())

    init() {}

    /// `method`'s route and what its interface declares of it, as
    /// ``CallRoute/resolveMarkingNonblocking(_:in:)`` gives it.
    func resolve(_ method: String, in registry: InterfaceRegistry) throws(CallFailure) -> ResolvedMethod {
        let generation = registry.generation
        let cached = recent.withLock { recent -> Entry? in
            for entry in recent.entries where entry.method == method { return entry }
            return nil
        }
        if let cached, cached.generation == generation {
            return cached.resolved
        }
        let resolved = try CallRoute.resolveMarkingNonblocking(method, in: registry)
        let entry = Entry(method: method, generation: generation, resolved: resolved)
        recent.withLock { recent in
            if let index = recent.entries.firstIndex(where: { $0.method == method }) {
                recent.entries[index] = entry
            } else if recent.entries.count < Self.capacity {
                recent.entries.append(entry)
            } else {
                recent.entries[recent.oldest] = entry
                recent.oldest = (recent.oldest + 1) % Self.capacity
            }
        }
        return resolved
    }
}

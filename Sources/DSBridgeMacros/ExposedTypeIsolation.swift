// SPDX-License-Identifier: MIT

/// Where the methods of an `@Exposed` type run, as far as the macro can see from the type's
/// declaration: this decides whether a call must `await` and whether a method can be called
/// without suspending at all.
enum ExposedTypeIsolation: Equatable, Sendable {
    /// A class, struct or enum without a global-actor attribute: its methods run on the
    /// caller's thread.
    case nonisolated
    /// An actor: its methods run on the actor.
    case actor
    /// A type isolated to a global actor (`@MainActor final class`), named as written.
    case globalActor(String)

    /// The global actor the type is isolated to, if any.
    var globalActor: String? {
        if case .globalActor(let name) = self { return name }
        return nil
    }
}

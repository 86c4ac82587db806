// SPDX-License-Identifier: MIT

/// One method `@Exposed` accepted: everything the code generator needs to call it.
struct ExposedMethod: Equatable, Sendable {
    /// How the method answers a page.
    enum Kind: Equatable, Sendable {
        /// Returns its result (`returnsValue`) or nothing.
        case synchronous(returnsValue: Bool)
        /// Delivers through its trailing completion handler.
        case asynchronous(Completion)
    }

    /// The trailing completion handler of an asynchronous method.
    struct Completion: Equatable, Sendable {
        /// The argument label of the completion parameter; `nil` for `_`.
        var label: String?
        /// True for `(R, Bool) -> Void`, where the method says when it is done;
        /// false for `(R) -> Void`, which completes with its one delivery.
        var reportsCompletion: Bool
    }

    /// The one parameter that receives the page's JSON argument.
    struct ValueParameter: Equatable, Sendable {
        /// The argument label; `nil` for `_`.
        var label: String?
        /// The type to decode, as source text (`String`, `[Point]`, `Int?`).
        var type: String
    }

    /// The DSBridge name: the base name without backticks.
    var name: String
    /// The base name as written in a call (backticks kept).
    var callName: String
    var kind: Kind
    var valueParameter: ValueParameter?
    var isAsync: Bool
    var isThrowing: Bool
    /// The global actor an attribute isolates the method to (`MainActor`), if any.
    var globalActor: String? = nil
    /// True when the method carries `@nonblocking`: the server may run it on its network
    /// thread. `ExposedMacro` clears it where the attribute is not allowed (see
    /// ``ExposedSignatureClassifier/nonblockingProblem(of:in:)``).
    var isNonblocking: Bool = false
    /// True when the method carries `@idempotent`: running it twice shows nothing a single
    /// run would not (a cluster may run it before its acceptance is journaled).
    var isIdempotent: Bool = false

    /// True when the method can be called from a synchronous context of a nonisolated type:
    /// it is not `async` and not isolated to a global actor of its own.
    var isCallableWithoutSuspending: Bool {
        !isAsync && globalActor == nil
    }

    var isSynchronous: Bool {
        if case .synchronous = kind { return true }
        return false
    }
}

// SPDX-License-Identifier: MIT

/// How a native method answers: once, by returning, or through a completion handler.
public enum ExposedMethodKind: Sendable, Hashable {
    /// Returns one value. In Swift: a method that returns (possibly `async throws`)
    /// and has at most one parameter.
    case synchronous
    /// Delivers through a trailing completion handler, possibly several times
    /// (`(T) -> Void` completes at once; `(T, Bool) -> Void` completes when the flag is true).
    case asynchronous
}

/// A Swift type whose methods pages may call. Write `@Exposed` on a class, struct, enum or
/// actor and the macro generates this conformance; conform by hand only for dynamic tables.
///
/// Methods are named by their base name (argument labels are ignored). An interface is
/// shared by every session, so it must be `Sendable`: a `final class` with immutable or
/// locked state, a struct, an enum, or an actor.
public protocol ExposedInterface: Sendable {
    /// Every exposed method, by its DSBridge name, with its kind.
    static var exposedMethods: [String: ExposedMethodKind] { get }

    /// Runs the synchronous method `name` with the call's `data` and returns its result.
    /// - Throws: ``ExposedCallError`` when `name` is unknown or the argument does not
    ///   decode; any error the method itself throws.
    func callSynchronousMethod(named name: String, with argument: JSONValue) async throws -> JSONValue

    /// Starts the asynchronous method `name` with the call's `data`; the method delivers
    /// through `completion`, now or later, once or repeatedly.
    /// - Throws: ``ExposedCallError`` when `name` is unknown or the argument does not
    ///   decode; any error the method itself throws before it completes.
    func callAsynchronousMethod(named name: String, with argument: JSONValue, completion: ExposedCompletion) async throws

    /// The methods marked `@nonblocking`: they return quickly without waiting on anything,
    /// so the server may run them on its network thread (no thread hop). Default: none.
    static var nonblockingMethods: Set<String> { get }

    /// The methods marked `@idempotent`: a second run with the same argument shows nothing
    /// the first did not (no effect beyond its answer, or one that a repeat leaves as it is).
    /// In cluster mode such a call runs without waiting for its acceptance to be journaled
    /// (docs/CLUSTER.md, rule 1). Default: none.
    static var idempotentMethods: Set<String> { get }

    /// Runs the synchronous method `name` on the calling thread when it needs no
    /// suspension (it is not `async` and not isolated to an actor).
    /// - Returns: the method's result, or `nil` when `name` must go through
    ///   ``callSynchronousMethod(named:with:)`` (the default for every name).
    /// - Throws: what ``callSynchronousMethod(named:with:)`` throws.
    func callSynchronousMethodWithoutSuspending(named name: String, with argument: JSONValue) throws -> JSONValue?

    /// Starts the asynchronous method `name` on the calling thread when it needs no
    /// suspension to start (it is not `async` and not isolated to an actor).
    /// - Returns: `false` when `name` must go through
    ///   ``callAsynchronousMethod(named:with:completion:)`` (the default for every name).
    /// - Throws: what ``callAsynchronousMethod(named:with:completion:)`` throws.
    func callAsynchronousMethodWithoutSuspending(named name: String, with argument: JSONValue, completion: ExposedCompletion) throws -> Bool
}

extension ExposedInterface {
    public static var nonblockingMethods: Set<String> { [] }
    public static var idempotentMethods: Set<String> { [] }

    public func callSynchronousMethodWithoutSuspending(named name: String, with argument: JSONValue) throws -> JSONValue? {
        nil
    }

    public func callAsynchronousMethodWithoutSuspending(
        named name: String, with argument: JSONValue, completion: ExposedCompletion
    ) throws -> Bool {
        false
    }
}

extension ExposedInterface {
    /// True when the interface exposes `name`; `isSynchronous` narrows the kind (`nil` = any).
    public func hasMethod(named name: String, isSynchronous: Bool? = nil) -> Bool {
        guard let kind = Self.exposedMethods[name] else { return false }
        switch isSynchronous {
        case .none: return true
        case .some(true): return kind == .synchronous
        case .some(false): return kind == .asynchronous
        }
    }
}

/// Adds ``ExposedInterface`` conformance to a class, struct, enum or actor: every instance
/// method that is not `private`, `fileprivate`, `static`, `class` or marked `@unexposed`
/// becomes callable from pages under its base name (backticks removed; argument labels play
/// no part, so two exposed methods may not share a base name).
///
/// ```swift
/// @Exposed
/// final class Api {
///     func testSyn(_ arg: String) -> String { arg + "[ syn call]" }
///     func testAsyn(_ arg: String, handler: @escaping (String, Bool) -> Void) { handler(arg, true) }
/// }
/// ```
///
/// A method is **asynchronous** when it has no result (no return clause, `-> Void` or `-> ()`)
/// and its last parameter is a function type (through attributes such as `@escaping` and
/// `@Sendable`, and parentheses; an optional function is not one). Every other method is
/// **synchronous**. Accepted shapes (`T`, `R`: any `Codable` type, ``JSONValue`` included;
/// the compiler checks `Codable`):
/// - synchronous: `func f()`, `func f(_ x: T)`, each with or without `-> R`, each also
///   `async`, `throws` or `async throws` (a page's synchronous call waits for them). Without a
///   result the page gets `""`; a `nil` result also answers `""`, a ``JSONValue/null`` result `null`.
/// - asynchronous: `func f(done: (R) -> Void)` (completes with its one delivery) or
///   `func f(done: (R, Bool) -> Void)` (the `Bool` says whether the call is complete, so the
///   method may deliver repeatedly), each with or without one leading value parameter
///   `_ x: T`, each also `async` and/or `throws`.
///
/// The value parameter is decoded from the call's `data`; a mismatch (a `String` given `5`,
/// `null` for a non-optional) throws ``ExposedCallError`` `badArgument` before the method runs.
/// The generated members mirror the type's access (`public`/`open` → `public`, `package` →
/// `package`, otherwise internal); `exposedMethods` is `nonisolated`, so `@MainActor` types
/// work; calls to a method isolated to another global actor (`@MainActor func`, or any
/// attribute named `…Actor`) are awaited.
///
/// In a class, struct or enum without a global actor, the macro also generates
/// ``ExposedInterface/callSynchronousMethodWithoutSuspending(named:with:)`` and
/// ``ExposedInterface/callAsynchronousMethodWithoutSuspending(named:with:completion:)`` for the
/// methods that are neither `async` nor isolated to a global actor, so the server can call
/// them without a task; each is left out (the protocol default answers "suspend") when no
/// method qualifies, and always in actors and global-actor types. Mark a method
/// ``nonblocking()`` to list it in ``ExposedInterface/nonblockingMethods``; `@nonblocking` on
/// an `async` method, a method of an actor or global-actor type, or a method with a
/// global-actor attribute is an error (the method is still exposed, as if unmarked). Mark a
/// method ``idempotent()`` to list it in ``ExposedInterface/idempotentMethods``.
///
/// Compile-time errors, attached to the offending declaration, each saying why and what to
/// do instead: attaching `@Exposed` to anything but a class, struct, enum or actor; a
/// synchronous method with two or more parameters; an asynchronous method with two or more
/// parameters before its completion; a completion with no or more than two parameters, whose
/// second parameter is not `Bool`, or that returns a value; a generic method (also through
/// a `some` parameter); `inout` or variadic parameters; a function-typed value parameter
/// (an optional completion included); a `mutating` method; `Any`, `AnyObject` or a type
/// containing them (`Any?`, `[String: Any]`, `[Any]`); a name containing `.`; two exposed
/// methods with the same base name. Mark such a method `@unexposed` to keep it.
///
/// Limitations: the macro sees only the type's own body, so methods declared in extensions
/// or inside `#if` blocks are not exposed; kinds are decided from spelling, so a typealias
/// of a function type or of `Void` is not recognised; a class must be `final` (or declare
/// `@unchecked Sendable`) because interfaces are `Sendable`; isolation the macro cannot see
/// (a subclass of a `@MainActor` class, a module whose default isolation is `MainActor`) must
/// be spelled on the type, or the generated non-suspending functions do not compile.
@attached(
    extension, conformances: ExposedInterface,
    names: named(exposedMethods), named(callSynchronousMethod), named(callAsynchronousMethod),
    named(nonblockingMethods), named(idempotentMethods), named(callSynchronousMethodWithoutSuspending),
    named(callAsynchronousMethodWithoutSuspending))
public macro Exposed() = #externalMacro(module: "DSBridgeMacros", type: "ExposedMacro")

/// Declares that a method of an `@Exposed` type returns (or starts) quickly without
/// waiting on anything: no sleeping, no blocking I/O, no lock held for long. The server may
/// then run it on its network thread, which saves two thread hops per call. A method marked
/// so that is seen blocking (or computing) for longer than 1 ms there, three times, is moved
/// off it for good, with a warning in the log: a mistake costs a few slow calls, not a
/// stalled server. (A first overrun only starts a closer look at the next runs, since a busy
/// machine can preempt the network thread for a few milliseconds at any time.) A frame whose
/// calls add up to more than 1 ms hands the rest of its calls to a worker.
///
/// Only for methods that are not `async` and not isolated to an actor (in an actor or a
/// global-actor type, or with a global-actor attribute); `@Exposed` rejects it elsewhere.
@attached(peer)
public macro nonblocking() = #externalMacro(module: "DSBridgeMacros", type: "NonblockingMacro")

/// Declares that running a method of an `@Exposed` type twice with the same argument shows
/// nothing one run would not: it has no effect beyond its answer (a look-up, a computation,
/// an echo), or one that a repeat leaves as it is (setting a value). In cluster mode
/// (`--redis`) a page's call to it runs at once instead of waiting a Redis round trip for
/// its acceptance to be journaled; its acceptance is written with its answer. If the node
/// is lost in between, the page sends the call again to the node it resumes on, where it
/// runs a second time; the page still sees one answer (answers reach a page only once they
/// are journaled). Without `--redis` the mark changes nothing. Leave it off every method
/// that must run exactly once (a payment, a counter, an append).
@attached(peer)
public macro idempotent() = #externalMacro(module: "DSBridgeMacros", type: "IdempotentMacro")

/// Keeps a method of an `@Exposed` type away from pages.
@attached(peer)
public macro unexposed() = #externalMacro(module: "DSBridgeMacros", type: "UnexposedMacro")

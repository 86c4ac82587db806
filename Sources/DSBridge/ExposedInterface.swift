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
/// `@unchecked Sendable`) because interfaces are `Sendable`.
@attached(extension, conformances: ExposedInterface,
          names: named(exposedMethods), named(callSynchronousMethod), named(callAsynchronousMethod))
public macro Exposed() = #externalMacro(module: "DSBridgeMacros", type: "ExposedMacro")

/// Keeps a method of an `@Exposed` type away from pages.
@attached(peer)
public macro unexposed() = #externalMacro(module: "DSBridgeMacros", type: "UnexposedMacro")

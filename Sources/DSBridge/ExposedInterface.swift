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
/// method that is not `private`, `fileprivate`, `static` or marked `@unexposed` becomes
/// callable from pages under its base name.
///
/// Accepted shapes (`T`, `R`: any `Codable` type, ``JSONValue`` included):
/// - synchronous: `func f() -> R`, `func f(_ x: T) -> R`, with or without a result, and
///   `async`/`throws` versions (a page's synchronous call waits for them);
/// - asynchronous: a trailing completion `(R) -> Void` or `(R, Bool) -> Void`, with or
///   without one leading value parameter.
/// Anything else is a compile-time error that says why.
@attached(extension, conformances: ExposedInterface,
          names: named(exposedMethods), named(callSynchronousMethod), named(callAsynchronousMethod))
public macro Exposed() = #externalMacro(module: "DSBridgeMacros", type: "ExposedMacro")

/// Keeps a method of an `@Exposed` type away from pages.
@attached(peer)
public macro unexposed() = #externalMacro(module: "DSBridgeMacros", type: "UnexposedMacro")

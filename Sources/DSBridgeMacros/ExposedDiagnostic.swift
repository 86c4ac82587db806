// SPDX-License-Identifier: MIT
import SwiftDiagnostics

/// An error `@Exposed` reports: why a declaration cannot be exposed and what to do instead.
struct ExposedDiagnostic: DiagnosticMessage, Equatable {
    let message: String
    /// Which rule was broken (`"overload"`, `"inout"`, …): the `id` of ``diagnosticID``.
    let rule: String
    var diagnosticID: MessageID { MessageID(domain: "DSBridgeMacros", id: rule) }
    var severity: DiagnosticSeverity { .error }

    private init(_ rule: String, _ message: String) {
        self.message = message
        self.rule = rule
    }

    /// The common ending of every method diagnostic; each reason ends with "…, or".
    private static let escapeHatch = "mark it @unexposed to keep it away from pages"

    private init(_ rule: String, method: String, _ why: String) {
        self.init(rule, "method '\(method)' cannot be exposed: \(why) \(Self.escapeHatch)")
    }

    /// `@Exposed` on something that is not a class, struct, enum or actor.
    static func notAType(_ what: String) -> Self {
        Self(
            "notAType",
            "@Exposed cannot be attached to \(what): it generates the ExposedInterface "
                + "implementation of a concrete type; attach it to the class, struct, enum or actor itself")
    }

    static func tooManyParameters(method: String, count: Int) -> Self {
        Self(
            "tooManyParameters", method: method,
            "a synchronous method takes at most one parameter because a page passes one JSON value, "
                + "but it has \(count); take a Codable struct that holds them instead, or")
    }

    static func tooManyValueParameters(method: String, count: Int) -> Self {
        Self(
            "tooManyValueParameters", method: method,
            "an asynchronous method takes at most one parameter before its completion handler because "
                + "a page passes one JSON value, but it has \(count); take a Codable struct that holds them instead, or")
    }

    static func completionArity(method: String, count: Int) -> Self {
        Self(
            "completionArity", method: method,
            "its completion handler takes \(count) parameter\(count == 1 ? "" : "s"), but it must be "
                + "(Result) -> Void, or (Result, Bool) -> Void where the Bool says whether the call is complete; "
                + "change the handler, or")
    }

    static func completionFlagNotBool(method: String, type: String) -> Self {
        Self(
            "completionFlagNotBool", method: method,
            "the second parameter of its completion handler is the 'complete' flag and must be Bool, "
                + "not '\(type)'; pass further values inside the result, or")
    }

    static func completionReturnsValue(method: String, type: String) -> Self {
        Self(
            "completionReturnsValue", method: method,
            "its completion handler returns '\(type)', but a page never answers a delivery, so it must "
                + "return Void; change the handler, or")
    }

    static func generic(method: String) -> Self {
        Self(
            "generic", method: method,
            "it is generic, and a page's JSON does not say which type to decode; use a concrete Codable "
                + "type or JSONValue, or")
    }

    static func inoutParameter(method: String, parameter: String) -> Self {
        Self(
            "inout", method: method,
            "parameter '\(parameter)' is inout, but a page never sees the changed value; return it instead, or")
    }

    static func variadic(method: String, parameter: String) -> Self {
        Self(
            "variadic", method: method,
            "parameter '\(parameter)' is variadic, but a page passes one JSON value; take an array instead, or")
    }

    static func functionParameter(method: String, parameter: String) -> Self {
        Self(
            "functionParameter", method: method,
            "parameter '\(parameter)' is a function, which a page cannot pass; only the last parameter may be "
                + "a function, a non-optional completion handler of a method without a result, so change it, or")
    }

    static func mutating(method: String) -> Self {
        Self(
            "mutating", method: method,
            "it is mutating, but an interface is shared by every session and never mutated; keep changing "
                + "state in a class or an actor, or")
    }

    static func anyType(method: String, type: String) -> Self {
        Self(
            "anyType", method: method,
            "'\(type)' is not JSON. DSBridge passes JSON: use a Codable type or JSONValue instead of Any, or")
    }

    static func dottedName(method: String) -> Self {
        Self(
            "dottedName", method: method,
            "a DSBridge method name cannot contain '.', which separates the namespace from the method; "
                + "rename it, or")
    }

    static func overload(method: String) -> Self {
        Self(
            "overload", method: method,
            "another exposed method is also named '\(method)', and DSBridge names methods by base name only, "
                + "so a page could not tell them apart; rename one, or")
    }

    // MARK: - @nonblocking

    /// The common ending of every `@nonblocking` diagnostic.
    private static let nonblockingRemedy =
        "remove @nonblocking (pages can still call the method; it then runs off the network thread)"

    private init(_ rule: String, nonblockingMethod method: String, _ why: String) {
        self.init(rule, "method '\(method)' cannot be @nonblocking: \(why); \(Self.nonblockingRemedy)")
    }

    /// `@nonblocking` on an `async` method.
    static func nonblockingAsync(method: String) -> Self {
        Self(
            "nonblockingAsync", nonblockingMethod: method,
            "it is async, and the network thread cannot wait for it to resume")
    }

    /// `@nonblocking` on a method of an actor.
    static func nonblockingInActor(method: String) -> Self {
        Self(
            "nonblockingInActor", nonblockingMethod: method,
            "it belongs to an actor, and the network thread cannot wait for an actor")
    }

    /// `@nonblocking` on a method of a type isolated to a global actor.
    static func nonblockingInGlobalActorType(method: String, actor: String) -> Self {
        Self(
            "nonblockingInGlobalActorType", nonblockingMethod: method,
            "its type is isolated to '\(actor)', and the network thread cannot wait for an actor")
    }

    /// `@nonblocking` on a method with a global-actor attribute of its own.
    static func nonblockingGlobalActorMethod(method: String, actor: String) -> Self {
        Self(
            "nonblockingGlobalActorMethod", nonblockingMethod: method,
            "it is isolated to '\(actor)', and the network thread cannot wait for an actor")
    }
}

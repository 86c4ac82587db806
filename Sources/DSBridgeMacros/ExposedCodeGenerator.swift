// SPDX-License-Identifier: MIT
import SwiftSyntax

/// Writes the `ExposedInterface` conformance for a list of accepted methods.
///
/// `try` and `await` appear only where a callee needs them, so the code compiles without
/// warnings in classes, structs, enums and actors (where the generated methods are isolated).
///
/// Members that would only repeat a protocol default are left out: `nonblockingMethods`
/// without `@nonblocking` methods, `idempotentMethods` without `@idempotent` ones, and each `…WithoutSuspending` function without a method it
/// could call. Actors and global-actor types never get the `…WithoutSuspending` functions:
/// those are synchronous `nonisolated` requirements, which an isolated member cannot satisfy.
struct ExposedCodeGenerator {
    /// The type being extended, as written (`Greeter`, `Outer.Inner`).
    var typeName: String
    /// The access modifier of the generated members (`public `, `package ` or empty).
    var accessPrefix: String
    /// Whether the extension declares the conformance (false when the type already declares it).
    var declaresConformance: Bool
    /// How the type is isolated. Generated members share a global actor, so calls to methods
    /// isolated to it need no `await`.
    var isolation: ExposedTypeIsolation
    var methods: [ExposedMethod]

    /// The source of the extension.
    var source: String {
        let conformance = declaresConformance ? ": DSBridge.ExposedInterface" : ""
        let members = [
            exposedMethodsMember, nonblockingMethodsMember, idempotentMethodsMember, callSynchronousMethodMember,
            callAsynchronousMethodMember, callSynchronousMethodWithoutSuspendingMember,
            callAsynchronousMethodWithoutSuspendingMember,
        ].compactMap { $0 }
        return "extension \(typeName)\(conformance) {\n\(members.joined(separator: "\n"))\n}"
    }

    // MARK: - Members, each indented for its place in the extension

    private var exposedMethodsMember: String {
        """
            \(accessPrefix)nonisolated static var exposedMethods: [String: DSBridge.ExposedMethodKind] {
                \(methodTable)
            }
        """
    }

    /// `nonblockingMethods`, or `nil` when no method is `@nonblocking`.
    private var nonblockingMethodsMember: String? {
        methodSetMember("nonblockingMethods", methods.filter(\.isNonblocking))
    }

    /// `idempotentMethods`, or `nil` when no method is `@idempotent`.
    private var idempotentMethodsMember: String? {
        methodSetMember("idempotentMethods", methods.filter(\.isIdempotent))
    }

    /// A static `Set<String>` of `marked`'s names called `member`; `nil` when none is marked
    /// (the protocol's default, an empty set, applies).
    private func methodSetMember(_ member: String, _ marked: [ExposedMethod]) -> String? {
        guard !marked.isEmpty else { return nil }
        return """
                \(accessPrefix)nonisolated static var \(member): Set<String> {
                    [\(marked.map { literal($0.name) }.joined(separator: ", "))]
                }
            """
    }

    private var callSynchronousMethodMember: String {
        """
            \(accessPrefix)func callSynchronousMethod(named name: String, with argument: DSBridge.JSONValue) async throws -> DSBridge.JSONValue {
                switch name {\(cases(of: methods.filter(\.isSynchronous)))
                default:
                    throw DSBridge.ExposedCallError.methodNotFound(name)
                }
            }
        """
    }

    private var callAsynchronousMethodMember: String {
        """
            \(accessPrefix)func callAsynchronousMethod(named name: String, with argument: DSBridge.JSONValue, completion: DSBridge.ExposedCompletion) async throws {
                switch name {\(cases(of: methods.filter { !$0.isSynchronous }))
                default:
                    throw DSBridge.ExposedCallError.methodNotFound(name)
                }
            }
        """
    }

    /// `callSynchronousMethodWithoutSuspending`, or `nil` when it would call no method.
    private var callSynchronousMethodWithoutSuspendingMember: String? {
        let callable = methodsCallableWithoutSuspending.filter(\.isSynchronous)
        guard !callable.isEmpty else { return nil }
        return """
                \(accessPrefix)func callSynchronousMethodWithoutSuspending(named name: String, with argument: DSBridge.JSONValue) throws -> DSBridge.JSONValue? {
                    switch name {\(cases(of: callable))
                    default:
                        return nil
                    }
                }
            """
    }

    /// `callAsynchronousMethodWithoutSuspending`, or `nil` when it would start no method.
    private var callAsynchronousMethodWithoutSuspendingMember: String? {
        let callable = methodsCallableWithoutSuspending.filter { !$0.isSynchronous }
        guard !callable.isEmpty else { return nil }
        return """
                \(accessPrefix)func callAsynchronousMethodWithoutSuspending(named name: String, with argument: DSBridge.JSONValue, completion: DSBridge.ExposedCompletion) throws -> Bool {
                    switch name {\(cases(of: callable, ending: "return true"))
                    default:
                        return false
                    }
                }
            """
    }

    // MARK: - Pieces

    /// The methods a synchronous, nonisolated function can call: none in an actor or a
    /// global-actor type; otherwise those neither `async` nor isolated to a global actor.
    private var methodsCallableWithoutSuspending: [ExposedMethod] {
        guard isolation == .nonisolated else { return [] }
        return methods.filter(\.isCallableWithoutSuspending)
    }

    /// `["a": .synchronous, "b": .asynchronous]`, in declaration order; `[:]` when empty.
    private var methodTable: String {
        guard !methods.isEmpty else { return "[:]" }
        let entries = methods.map { "\(literal($0.name)): \($0.isSynchronous ? ".synchronous" : ".asynchronous")" }
        return "[\(entries.joined(separator: ", "))]"
    }

    /// The `case` clauses of one switch over `methods`, each line starting with a newline and
    /// indented for its place in a member; empty when there are none. `ending`, if any, is a
    /// statement added after each method's body.
    private func cases(of methods: [ExposedMethod], ending: String? = nil) -> String {
        var lines: [String] = []
        for method in methods {
            lines.append("        case \(literal(method.name)):")
            lines += (body(of: method) + (ending.map { [$0] } ?? [])).map { "            " + $0 }
        }
        return lines.map { "\n" + $0 }.joined()
    }

    /// The statements that decode the argument, call `method` and answer.
    private func body(of method: ExposedMethod) -> [String] {
        var lines: [String] = []
        var arguments: [String] = []
        if let parameter = method.valueParameter {
            lines.append(
                "let value = try DSBridge.ExposedArgument.decode(\(parameter.type).self, from: argument, method: name)")
            arguments.append(argument("value", label: parameter.label))
        }
        let awaitKeyword = needsAwait(method) ? "await " : ""
        let effects = (method.isThrowing ? "try " : "") + awaitKeyword
        switch method.kind {
        case .synchronous(returnsValue: true):
            let call = "self.\(method.callName)(\(arguments.joined(separator: ", ")))"
            lines.append("return try \(awaitKeyword)DSBridge.ExposedResult.encode(\(call))")
        case .synchronous(returnsValue: false):
            lines.append("\(effects)self.\(method.callName)(\(arguments.joined(separator: ", ")))")
            lines.append("return DSBridge.ExposedResult.void")
        case .asynchronous(let completion):
            let (parameters, delivery) =
                completion.reportsCompletion
                ? ("result, complete", "completion(result, complete: complete)")
                : ("result", "completion(result)")
            arguments.append(argument("{ \(parameters) in", label: completion.label))
            lines.append("\(effects)self.\(method.callName)(\(arguments.joined(separator: ", "))")
            lines.append("    \(delivery)")
            lines.append("})")
        }
        return lines
    }

    /// True when calling `method` suspends: it is `async`, or isolated to a global actor
    /// other than the type's.
    private func needsAwait(_ method: ExposedMethod) -> Bool {
        method.isAsync || (method.globalActor != nil && method.globalActor != isolation.globalActor)
    }

    private func argument(_ expression: String, label: String?) -> String {
        label.map { "\($0): \(expression)" } ?? expression
    }

    /// A Swift string literal for `text`.
    private func literal(_ text: String) -> String {
        StringLiteralExprSyntax(content: text).description
    }
}

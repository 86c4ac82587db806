// SPDX-License-Identifier: MIT
import SwiftSyntax

/// Writes the `ExposedInterface` conformance for a list of accepted methods.
///
/// `try` and `await` appear only where a callee needs them, so the code compiles without
/// warnings in classes, structs, enums and actors (where the generated methods are isolated).
struct ExposedCodeGenerator {
    /// The type being extended, as written (`Greeter`, `Outer.Inner`).
    var typeName: String
    /// The access modifier of the generated members (`public `, `package ` or empty).
    var accessPrefix: String
    /// Whether the extension declares the conformance (false when the type already declares it).
    var declaresConformance: Bool
    /// The global actor the type is isolated to (`MainActor`), if any: generated members
    /// share it, so calls to methods isolated to it need no `await`.
    var globalActor: String?
    var methods: [ExposedMethod]

    /// The source of the extension.
    var source: String {
        let conformance = declaresConformance ? ": DSBridge.ExposedInterface" : ""
        return """
            extension \(typeName)\(conformance) {
                \(accessPrefix)nonisolated static var exposedMethods: [String: DSBridge.ExposedMethodKind] {
                    \(methodTable)
                }
                \(accessPrefix)func callSynchronousMethod(named name: String, with argument: DSBridge.JSONValue) async throws -> DSBridge.JSONValue {
                    switch name {\(cases(synchronous: true))
                    default:
                        throw DSBridge.ExposedCallError.methodNotFound(name)
                    }
                }
                \(accessPrefix)func callAsynchronousMethod(named name: String, with argument: DSBridge.JSONValue, completion: DSBridge.ExposedCompletion) async throws {
                    switch name {\(cases(synchronous: false))
                    default:
                        throw DSBridge.ExposedCallError.methodNotFound(name)
                    }
                }
            }
            """
    }

    /// `["a": .synchronous, "b": .asynchronous]`, in declaration order; `[:]` when empty.
    private var methodTable: String {
        guard !methods.isEmpty else { return "[:]" }
        let entries = methods.map { "\(literal($0.name)): \($0.isSynchronous ? ".synchronous" : ".asynchronous")" }
        return "[\(entries.joined(separator: ", "))]"
    }

    /// The `case` clauses of one switch, each line starting with a newline and indented for
    /// its place in `source`; empty when there are none.
    private func cases(synchronous: Bool) -> String {
        var lines: [String] = []
        for method in methods where method.isSynchronous == synchronous {
            lines.append("        case \(literal(method.name)):")
            lines += body(of: method).map { "            " + $0 }
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
        method.isAsync || (method.globalActor != nil && method.globalActor != globalActor)
    }

    private func argument(_ expression: String, label: String?) -> String {
        label.map { "\($0): \(expression)" } ?? expression
    }

    /// A Swift string literal for `text`.
    private func literal(_ text: String) -> String {
        StringLiteralExprSyntax(content: text).description
    }
}

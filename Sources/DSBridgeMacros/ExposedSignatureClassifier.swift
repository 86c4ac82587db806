// SPDX-License-Identifier: MIT
import SwiftSyntax

/// A reason one declaration cannot be exposed, and the node to attach it to.
struct ExposedProblem {
    let node: Syntax
    let diagnostic: ExposedDiagnostic

    init(_ node: some SyntaxProtocol, _ diagnostic: ExposedDiagnostic) {
        self.node = Syntax(node)
        self.diagnostic = diagnostic
    }
}

/// Decides, from syntax alone, whether and how `@Exposed` exposes a method. Pure: no macro
/// context, no diagnostics emitted, so every rule is testable on a parsed declaration.
enum ExposedSignatureClassifier {
    /// What became of one method.
    enum Classification {
        case exposed(ExposedMethod)
        /// Not exposable; at least one problem.
        case rejected([ExposedProblem])
    }

    /// True when `@Exposed` considers `function` at all: an instance method that is not
    /// `static`, `class`, `private`, `fileprivate` or marked `@unexposed`.
    static func isCandidate(_ function: FunctionDeclSyntax) -> Bool {
        let excluded: Set<Keyword> = [.static, .class, .private, .fileprivate]
        for modifier in function.modifiers {
            if case .keyword(let keyword) = modifier.name.tokenKind, excluded.contains(keyword) { return false }
        }
        return attribute(named: "unexposed", in: function) == nil
    }

    /// The `@nonblocking` attribute of `function`, if it carries one.
    static func nonblockingAttribute(of function: FunctionDeclSyntax) -> AttributeSyntax? {
        attribute(named: "nonblocking", in: function)
    }

    /// How the type `declaration` is isolated: an actor, a type with a global-actor attribute
    /// (see ``globalActor(in:)``), or neither.
    static func isolation(of declaration: some DeclGroupSyntax) -> ExposedTypeIsolation {
        if declaration.is(ActorDeclSyntax.self) { return .actor }
        if let actor = globalActor(in: declaration.attributes) { return .globalActor(actor) }
        return .nonisolated
    }

    /// Why `function` may not be `@nonblocking` in a type isolated as `isolation`, attached to
    /// the attribute; `nil` when it carries no `@nonblocking` or may. A nonblocking method runs
    /// on the server's network thread, which can neither suspend nor wait for an actor; the
    /// first reason found is reported (the type's isolation, the method's, then `async`).
    static func nonblockingProblem(
        of function: FunctionDeclSyntax, in isolation: ExposedTypeIsolation
    ) -> ExposedProblem? {
        guard let attribute = nonblockingAttribute(of: function) else { return nil }
        let name = exposedName(of: function)
        switch isolation {
        case .actor:
            return ExposedProblem(attribute, .nonblockingInActor(method: name))
        case .globalActor(let actor):
            return ExposedProblem(attribute, .nonblockingInGlobalActorType(method: name, actor: actor))
        case .nonisolated:
            break
        }
        if let actor = globalActor(in: function.attributes) {
            return ExposedProblem(attribute, .nonblockingGlobalActorMethod(method: name, actor: actor))
        }
        if function.signature.effectSpecifiers?.asyncSpecifier?.tokenKind == .keyword(.async) {
            return ExposedProblem(attribute, .nonblockingAsync(method: name))
        }
        return nil
    }

    /// The DSBridge name of `function`: its base name without backticks.
    static func exposedName(of function: FunctionDeclSyntax) -> String {
        function.name.identifier?.name ?? function.name.text
    }

    /// Classifies a candidate method (see ``isCandidate(_:)``).
    static func classify(_ function: FunctionDeclSyntax) -> Classification {
        let name = exposedName(of: function)
        var problems: [ExposedProblem] = []

        if name.contains(".") { problems.append(ExposedProblem(function.name, .dottedName(method: name))) }
        if let generics = function.genericParameterClause {
            problems.append(ExposedProblem(generics, .generic(method: name)))
        }
        if let mutating = function.modifiers.first(where: { $0.name.tokenKind == .keyword(.mutating) }) {
            problems.append(ExposedProblem(mutating, .mutating(method: name)))
        }

        let parameters = Array(function.signature.parameterClause.parameters)
        for parameter in parameters {
            let parameterName = parameter.internalName
            if let specifier = parameter.inoutSpecifier {
                problems.append(ExposedProblem(specifier, .inoutParameter(method: name, parameter: parameterName)))
            }
            if let ellipsis = parameter.ellipsis {
                problems.append(ExposedProblem(ellipsis, .variadic(method: name, parameter: parameterName)))
            }
            if parameter.type.isOpaque {
                problems.append(ExposedProblem(parameter.type, .generic(method: name)))
            }
        }

        let returnType = function.signature.returnClause?.type
        let returnsValue = returnType.map { !$0.isVoid } ?? false
        let completionType = returnsValue ? nil : parameters.last?.type.functionType

        let valueParameters: ArraySlice<FunctionParameterSyntax>
        var completion: ExposedMethod.Completion?
        if let completionType, let completionParameter = parameters.last {
            valueParameters = parameters.dropLast()
            if valueParameters.count > 1 {
                problems.append(
                    ExposedProblem(
                        valueParameters[valueParameters.startIndex + 1],
                        .tooManyValueParameters(method: name, count: valueParameters.count)))
            }
            problems += completionProblems(completionType, method: name)
            completion = ExposedMethod.Completion(
                label: completionParameter.label, reportsCompletion: completionType.parameters.count == 2)
        } else {
            valueParameters = parameters[...]
            if parameters.count > 1 {
                problems.append(
                    ExposedProblem(parameters[1], .tooManyParameters(method: name, count: parameters.count)))
            }
            if let returnType, returnType.mentionsAny {
                problems.append(ExposedProblem(returnType, .anyType(method: name, type: returnType.trimmedDescription)))
            }
        }

        for parameter in valueParameters {
            if parameter.type.isFunctionOrOptionalFunction {
                problems.append(
                    ExposedProblem(parameter.type, .functionParameter(method: name, parameter: parameter.internalName)))
            } else if parameter.type.mentionsAny {
                problems.append(
                    ExposedProblem(parameter.type, .anyType(method: name, type: parameter.type.trimmedDescription)))
            }
        }

        guard problems.isEmpty else { return .rejected(problems) }

        let effects = function.signature.effectSpecifiers
        return .exposed(
            ExposedMethod(
                name: name,
                callName: function.name.text,
                kind: completion.map { .asynchronous($0) } ?? .synchronous(returnsValue: returnsValue),
                valueParameter: valueParameters.first.map {
                    ExposedMethod.ValueParameter(label: $0.label, type: $0.type.decodableSpelling)
                },
                // `reasync` / `rethrows` callees neither suspend nor throw: the generated
                // completion closure does neither.
                isAsync: effects?.asyncSpecifier?.tokenKind == .keyword(.async),
                isThrowing: effects?.throwsClause?.throwsSpecifier.tokenKind == .keyword(.throws),
                globalActor: globalActor(in: function.attributes),
                isNonblocking: nonblockingAttribute(of: function) != nil,
                isIdempotent: attribute(named: "idempotent", in: function) != nil))
    }

    /// The global actor among `attributes`: `@MainActor`, or any argument-less attribute whose
    /// name ends in `Actor` (a syntactic guess: custom global actors cannot be recognised otherwise).
    static func globalActor(in attributes: AttributeListSyntax) -> String? {
        for element in attributes {
            guard case .attribute(let attribute) = element, attribute.arguments == nil else { continue }
            let name = attribute.attributeName.trimmedDescription
            if name.hasSuffix("Actor") { return name }
        }
        return nil
    }

    /// The first attribute of `function` named `name` (`@name` or `@Module.name`).
    private static func attribute(named name: String, in function: FunctionDeclSyntax) -> AttributeSyntax? {
        for element in function.attributes {
            if case .attribute(let attribute) = element, attribute.isNamed(name) { return attribute }
        }
        return nil
    }

    /// Checks a completion handler: `(R) -> Void` or `(R, Bool) -> Void`, with `R` not `Any`.
    private static func completionProblems(_ type: FunctionTypeSyntax, method: String) -> [ExposedProblem] {
        var problems: [ExposedProblem] = []
        let elements = Array(type.parameters)
        if elements.isEmpty || elements.count > 2 {
            problems.append(ExposedProblem(type, .completionArity(method: method, count: elements.count)))
        } else {
            if elements.count == 2, !elements[1].type.isBool {
                problems.append(
                    ExposedProblem(
                        elements[1].type, .completionFlagNotBool(method: method, type: elements[1].type.trimmedDescription)))
            }
            if elements[0].type.mentionsAny {
                problems.append(
                    ExposedProblem(elements[0].type, .anyType(method: method, type: elements[0].type.trimmedDescription)))
            }
        }
        let result = type.returnClause.type
        if !result.isVoid {
            problems.append(ExposedProblem(result, .completionReturnsValue(method: method, type: result.trimmedDescription)))
        }
        return problems
    }
}

extension FunctionParameterSyntax {
    /// The argument label; `nil` for `_`.
    fileprivate var label: String? {
        firstName.tokenKind == .wildcard ? nil : firstName.text
    }

    /// The name the method's body uses, for messages.
    fileprivate var internalName: String {
        let token = secondName ?? firstName
        return token.identifier?.name ?? token.text
    }

    /// The `inout` specifier of the parameter's type, if any.
    fileprivate var inoutSpecifier: TokenSyntax? {
        guard let attributed = type.as(AttributedTypeSyntax.self) else { return nil }
        for specifier in attributed.specifiers {
            if case .simpleTypeSpecifier(let simple) = specifier, simple.specifier.tokenKind == .keyword(.inout) {
                return simple.specifier
            }
        }
        return nil
    }
}

extension AttributeSyntax {
    /// True for `@name` and `@Module.name`.
    fileprivate func isNamed(_ name: String) -> Bool {
        if let identifier = attributeName.as(IdentifierTypeSyntax.self) { return identifier.name.text == name }
        if let member = attributeName.as(MemberTypeSyntax.self) { return member.name.text == name }
        return false
    }
}

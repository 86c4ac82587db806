// SPDX-License-Identifier: MIT
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Exposed`: generates the `ExposedInterface` conformance of a class, struct, enum or actor
/// from its instance methods. The rules are documented on the macro declaration in
/// `DSBridge/ExposedInterface.swift`; ``ExposedSignatureClassifier`` applies them.
public struct ExposedMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let accessPrefix = accessPrefix(of: declaration) else {
            context.diagnose(Diagnostic(node: node, message: ExposedDiagnostic.notAType(describe(declaration))))
            return []
        }

        let isolation = ExposedSignatureClassifier.isolation(of: declaration)
        var methods: [ExposedMethod] = []
        var names: Set<String> = []
        for member in declaration.memberBlock.members {
            guard let function = member.decl.as(FunctionDeclSyntax.self),
                ExposedSignatureClassifier.isCandidate(function)
            else { continue }
            let name = ExposedSignatureClassifier.exposedName(of: function)
            guard names.insert(name).inserted else {
                context.diagnose(Diagnostic(node: function.name, message: ExposedDiagnostic.overload(method: name)))
                continue
            }
            if let method = exposedMethod(function, in: isolation, context: context) {
                methods.append(method)
            }
        }

        let generator = ExposedCodeGenerator(
            typeName: type.trimmedDescription, accessPrefix: accessPrefix,
            declaresConformance: !protocols.isEmpty, isolation: isolation, methods: methods)
        guard let extensionDecl = DeclSyntax("\(raw: generator.source)").as(ExtensionDeclSyntax.self) else {
            return []
        }
        return [extensionDecl]
    }

    /// Classifies a candidate method, diagnosing every problem: `nil` when it is rejected. A
    /// misplaced `@nonblocking` does not reject the method; it is exposed as if unmarked.
    private static func exposedMethod(
        _ function: FunctionDeclSyntax, in isolation: ExposedTypeIsolation, context: some MacroExpansionContext
    ) -> ExposedMethod? {
        let nonblockingProblem = ExposedSignatureClassifier.nonblockingProblem(of: function, in: isolation)
        if let nonblockingProblem { diagnose(nonblockingProblem, in: context) }
        switch ExposedSignatureClassifier.classify(function) {
        case .exposed(var method):
            if nonblockingProblem != nil { method.isNonblocking = false }
            return method
        case .rejected(let problems):
            for problem in problems { diagnose(problem, in: context) }
            return nil
        }
    }

    private static func diagnose(_ problem: ExposedProblem, in context: some MacroExpansionContext) {
        context.diagnose(Diagnostic(node: problem.node, message: problem.diagnostic))
    }

    /// The access modifier generated members need (`"public "`, `"package "` or `""`), or
    /// `nil` when `declaration` is not a class, struct, enum or actor.
    private static func accessPrefix(of declaration: some DeclGroupSyntax) -> String? {
        guard
            declaration.is(ClassDeclSyntax.self) || declaration.is(StructDeclSyntax.self)
                || declaration.is(EnumDeclSyntax.self) || declaration.is(ActorDeclSyntax.self)
        else { return nil }
        for modifier in declaration.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }

    /// "a protocol", "an extension", … for the not-a-type diagnostic.
    private static func describe(_ declaration: some DeclGroupSyntax) -> String {
        if declaration.is(ProtocolDeclSyntax.self) { return "a protocol" }
        if declaration.is(ExtensionDeclSyntax.self) { return "an extension" }
        return "this declaration"
    }
}

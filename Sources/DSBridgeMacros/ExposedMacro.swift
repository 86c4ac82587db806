// SPDX-License-Identifier: MIT
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Exposed`: generates the `ExposedInterface` conformance. (Placeholder: being written.)
public struct ExposedMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        []
    }
}

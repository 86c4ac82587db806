// SPDX-License-Identifier: MIT
import SwiftSyntax
import SwiftSyntaxMacros

/// `@unexposed`: a marker read by `@Exposed`; it adds nothing.
public struct UnexposedMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

// SPDX-License-Identifier: MIT
import SwiftSyntax
import SwiftSyntaxMacros

/// `@idempotent`: a marker read by `@Exposed`, which lists the method in
/// `idempotentMethods`; it adds nothing.
public struct IdempotentMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

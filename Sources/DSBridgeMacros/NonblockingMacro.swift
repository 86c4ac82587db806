// SPDX-License-Identifier: MIT
import SwiftSyntax
import SwiftSyntaxMacros

/// `@nonblocking`: a marker read by `@Exposed`, which lists the method in
/// `nonblockingMethods` (or reports why it cannot be there); it adds nothing.
public struct NonblockingMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

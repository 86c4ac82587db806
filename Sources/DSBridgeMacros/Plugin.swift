// SPDX-License-Identifier: MIT
import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct DSBridgeMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [ExposedMacro.self, UnexposedMacro.self, NonblockingMacro.self, IdempotentMacro.self]
}

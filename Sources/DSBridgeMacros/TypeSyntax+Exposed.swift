// SPDX-License-Identifier: MIT
import SwiftSyntax

/// Questions `@Exposed` asks about how a type is spelled. Answers are syntactic: a typealias
/// of `Void` or of a function type is not recognised.
extension TypeSyntax {
    /// The function type this spells, looking through attributes (`@escaping`, `@Sendable`),
    /// specifiers and parentheses; `nil` for anything else, an optional function included.
    var functionType: FunctionTypeSyntax? {
        if let function = self.as(FunctionTypeSyntax.self) { return function }
        if let attributed = self.as(AttributedTypeSyntax.self) { return attributed.baseType.functionType }
        if let inner = parenthesizedType { return inner.functionType }
        return nil
    }

    /// True for a function type, also when wrapped in `Optional` or an implicitly unwrapped optional.
    var isFunctionOrOptionalFunction: Bool {
        if functionType != nil { return true }
        if let optional = self.as(OptionalTypeSyntax.self) { return optional.wrappedType.isFunctionOrOptionalFunction }
        if let iuo = self.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return iuo.wrappedType.isFunctionOrOptionalFunction
        }
        if let attributed = self.as(AttributedTypeSyntax.self) { return attributed.baseType.isFunctionOrOptionalFunction }
        if let inner = parenthesizedType { return inner.isFunctionOrOptionalFunction }
        return false
    }

    /// True for `Void`, `Swift.Void` and `()`, parenthesised or not.
    var isVoid: Bool {
        if let tuple = self.as(TupleTypeSyntax.self), tuple.elements.isEmpty { return true }
        if let inner = parenthesizedType { return inner.isVoid }
        return isNamed("Void")
    }

    /// True for `Bool` and `Swift.Bool`, parenthesised or not.
    var isBool: Bool {
        if let inner = parenthesizedType { return inner.isBool }
        return isNamed("Bool")
    }

    /// True when `Any` or `AnyObject` appears anywhere in the type (`Any?`, `[String: Any]`,
    /// `Optional<AnyObject>`): such values are not JSON.
    var mentionsAny: Bool {
        let finder = AnyTypeFinder(viewMode: .sourceAccurate)
        finder.walk(self)
        return finder.found
    }

    /// True for an opaque parameter type (`some Codable`), which makes a method generic.
    var isOpaque: Bool {
        if let someOrAny = self.as(SomeOrAnyTypeSyntax.self) { return someOrAny.someOrAnySpecifier.tokenKind == .keyword(.some) }
        if let attributed = self.as(AttributedTypeSyntax.self) { return attributed.baseType.isOpaque }
        if let inner = parenthesizedType { return inner.isOpaque }
        return false
    }

    /// The type to decode a value parameter as: specifiers (`borrowing`, `sending`) and attributes
    /// dropped, an implicitly unwrapped optional made an `Optional`, parentheses added where
    /// `.self` needs them. Source text, without trivia.
    var decodableSpelling: String {
        if let attributed = self.as(AttributedTypeSyntax.self) { return attributed.baseType.decodableSpelling }
        if let iuo = self.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return OptionalTypeSyntax(wrappedType: iuo.wrappedType.trimmed).description
        }
        let text = trimmedDescription
        switch kind {
        case .someOrAnyType, .compositionType, .functionType, .packExpansionType: return "(\(text))"
        default: return text
        }
    }

    /// The single unlabelled element of a parenthesised type such as `(Bool)`.
    private var parenthesizedType: TypeSyntax? {
        guard let tuple = self.as(TupleTypeSyntax.self), tuple.elements.count == 1,
            let element = tuple.elements.first, element.firstName == nil, element.ellipsis == nil
        else { return nil }
        return element.type
    }

    /// True for `name` or `Swift.name` without generic arguments.
    private func isNamed(_ name: String) -> Bool {
        if let identifier = self.as(IdentifierTypeSyntax.self) {
            return identifier.name.text == name && identifier.genericArgumentClause == nil
        }
        if let member = self.as(MemberTypeSyntax.self) {
            return member.name.text == name && member.genericArgumentClause == nil
                && member.baseType.as(IdentifierTypeSyntax.self)?.name.text == "Swift"
        }
        return false
    }
}

/// Finds `Any` / `AnyObject` (also as `Swift.Any`) inside a type.
private final class AnyTypeFinder: SyntaxVisitor {
    private(set) var found = false

    override func visit(_ node: IdentifierTypeSyntax) -> SyntaxVisitorContinueKind {
        if node.name.isAnyName { found = true }
        return found ? .skipChildren : .visitChildren
    }

    override func visit(_ node: MemberTypeSyntax) -> SyntaxVisitorContinueKind {
        if node.name.isAnyName, node.baseType.as(IdentifierTypeSyntax.self)?.name.text == "Swift" { found = true }
        return found ? .skipChildren : .visitChildren
    }
}

extension TokenSyntax {
    fileprivate var isAnyName: Bool {
        text == "Any" || text == "AnyObject"
    }
}

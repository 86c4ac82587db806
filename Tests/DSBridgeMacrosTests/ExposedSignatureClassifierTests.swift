// SPDX-License-Identifier: MIT
import SwiftParser
import SwiftSyntax
import XCTest

@testable import DSBridgeMacros

/// The pure rules behind `@Exposed`, applied to parsed declarations without a macro context.
final class ExposedSignatureClassifierTests: XCTestCase {
    func testInstanceMethodsAreCandidatesButStaticPrivateAndUnexposedAreNot() throws {
        for source in ["func f()", "public func f()", "nonisolated func f()", "@MainActor func f()"] {
            XCTAssertTrue(ExposedSignatureClassifier.isCandidate(try function(source)), source)
        }
        for source in [
            "static func f()", "class func f()", "private func f()", "fileprivate func f()",
            "@unexposed func f()", "@DSBridge.unexposed func f()",
        ] {
            XCTAssertFalse(ExposedSignatureClassifier.isCandidate(try function(source)), source)
        }
    }

    func testSynchronousMethodIsDescribed() throws {
        let method = try exposed("func fetch(id: Int) async throws -> Item")
        XCTAssertEqual(
            method,
            ExposedMethod(
                name: "fetch", callName: "fetch", kind: .synchronous(returnsValue: true),
                valueParameter: .init(label: "id", type: "Int"), isAsync: true, isThrowing: true))
    }

    func testVoidSpellingsMeanNoResult() throws {
        for source in ["func f()", "func f() -> Void", "func f() -> ()", "func f() -> Swift.Void", "func f() -> (Void)"] {
            XCTAssertEqual(try exposed(source).kind, .synchronous(returnsValue: false), source)
        }
        XCTAssertEqual(try exposed("func f() -> Int?").kind, .synchronous(returnsValue: true))
    }

    func testTrailingFunctionParameterMakesTheMethodAsynchronous() throws {
        let method = try exposed("@MainActor func f(_ x: String, handler: @escaping @Sendable (String, Bool) -> Void) throws")
        XCTAssertEqual(method.kind, .asynchronous(.init(label: "handler", reportsCompletion: true)))
        XCTAssertEqual(method.valueParameter, .init(label: nil, type: "String"))
        XCTAssertEqual(method.globalActor, "MainActor")
        XCTAssertTrue(method.isThrowing)
        XCTAssertFalse(method.isAsync)

        XCTAssertEqual(
            try exposed("func f(_ done: ((Int) -> ())) async").kind,
            .asynchronous(.init(label: nil, reportsCompletion: false)))
    }

    func testRethrowingMethodIsCalledWithoutTryBecauseItsCompletionNeverThrows() throws {
        let method = try exposed("func f(_ done: (Int) throws -> Void) rethrows")
        XCTAssertFalse(method.isThrowing)
        XCTAssertTrue(try exposed("func f() throws(MyError) -> Int").isThrowing)
    }

    func testTrailingFunctionOfAMethodWithAResultIsNotACompletion() throws {
        XCTAssertEqual(try rejectedIDs("func f(_ done: @escaping (Int) -> Void) -> Int"), ["functionParameter"])
    }

    func testValueParameterTypeIsSpelledSoThatDotSelfCompiles() throws {
        let cases = [
            "func f(_ x: Int!)": "Int?",
            "func f(_ x: borrowing String)": "String",
            "func f(_ x: [String: [Int]]?)": "[String: [Int]]?",
            "func f(_ x: any Message)": "(any Message)",
            "func f(_ x: Outer.Inner)": "Outer.Inner",
        ]
        for (source, spelling) in cases {
            XCTAssertEqual(try exposed(source).valueParameter?.type, spelling, source)
        }
    }

    func testBacktickedNameIsExposedWithoutBackticksAndCalledWithThem() throws {
        let method = try exposed("func `default`() -> Int")
        XCTAssertEqual(method.name, "default")
        XCTAssertEqual(method.callName, "`default`")
    }

    func testEveryProblemOfAMethodIsReported() throws {
        XCTAssertEqual(
            try rejectedIDs("mutating func f<T>(_ a: inout T, _ b: Int...) -> Any"),
            ["generic", "mutating", "inout", "variadic", "tooManyParameters", "anyType"])
        XCTAssertEqual(
            try rejectedIDs("func f(_ a: Int, _ b: Int, done: (Any, String, Int) -> Int)"),
            ["tooManyValueParameters", "completionArity", "completionReturnsValue"])
        XCTAssertEqual(try rejectedIDs("func f(done: (Any, Int) -> Void)"), ["completionFlagNotBool", "anyType"])
    }

    func testAnyIsFoundAnywhereInAType() throws {
        for spelling in ["Any", "Any?", "AnyObject", "[String: Any]", "[Any]", "Optional<Any>", "Swift.Any", "(Int, Any)"] {
            XCTAssertTrue(TypeSyntax(stringLiteral: spelling).mentionsAny, spelling)
        }
        for spelling in ["any Codable", "AnyCodable", "[String: JSONValue]", "Int?"] {
            XCTAssertFalse(TypeSyntax(stringLiteral: spelling).mentionsAny, spelling)
        }
    }

    func testGlobalActorIsRecognisedByName() throws {
        XCTAssertEqual(try exposed("@MainActor func f()").globalActor, "MainActor")
        XCTAssertEqual(try exposed("@DatabaseActor func f()").globalActor, "DatabaseActor")
        XCTAssertNil(try exposed("@discardableResult func f() -> Int").globalActor)
    }

    func testIdempotentAttributeIsRecorded() throws {
        XCTAssertTrue(try exposed("@idempotent func f()").isIdempotent)
        XCTAssertTrue(try exposed("@nonblocking @DSBridge.idempotent func f(_ done: (Int) -> Void)").isIdempotent)
        XCTAssertFalse(try exposed("@nonblocking func f()").isIdempotent)
    }

    func testNonblockingAttributeIsRecorded() throws {
        XCTAssertTrue(try exposed("@nonblocking func f()").isNonblocking)
        XCTAssertTrue(try exposed("@DSBridge.nonblocking func f(_ done: (Int) -> Void)").isNonblocking)
        XCTAssertFalse(try exposed("func f()").isNonblocking)
        XCTAssertTrue(ExposedSignatureClassifier.isCandidate(try function("@nonblocking func f()")))
        XCTAssertFalse(ExposedSignatureClassifier.isCandidate(try function("@nonblocking @unexposed func f()")))
    }

    func testTypeIsolationIsReadFromTheDeclaration() throws {
        let cases: [(String, ExposedTypeIsolation)] = [
            ("actor A {}", .actor),
            ("@MainActor final class B {}", .globalActor("MainActor")),
            ("@DatabaseActor enum C {}", .globalActor("DatabaseActor")),
            ("@frozen struct D {}", .nonisolated),
            ("final class E: Sendable {}", .nonisolated),
        ]
        for (source, isolation) in cases {
            let parsed = Parser.parse(source: source)
            let decl = try XCTUnwrap(parsed.statements.first?.item.asProtocol(DeclGroupSyntax.self), source)
            XCTAssertEqual(ExposedSignatureClassifier.isolation(of: decl), isolation, source)
        }
    }

    func testNonblockingIsAllowedOnlyWhereNothingSuspends() throws {
        let allowed = [
            "@nonblocking func f() -> Int", "@nonblocking func f(_ done: (Int) -> Void) throws",
            "@nonblocking nonisolated func f()", "func f() async", "@MainActor func f()",
        ]
        for source in allowed {
            XCTAssertNil(try nonblockingRule(source, in: .nonisolated), source)
        }
        XCTAssertEqual(try nonblockingRule("@nonblocking func f() async", in: .nonisolated), "nonblockingAsync")
        XCTAssertEqual(
            try nonblockingRule("@nonblocking @MainActor func f()", in: .nonisolated), "nonblockingGlobalActorMethod")
        XCTAssertEqual(try nonblockingRule("@nonblocking func f()", in: .actor), "nonblockingInActor")
        XCTAssertEqual(
            try nonblockingRule("@nonblocking func f() async", in: .globalActor("MainActor")),
            "nonblockingInGlobalActorType")
        XCTAssertNil(try nonblockingRule("func f()", in: .actor))
    }

    // MARK: - Helpers

    /// The rule `@nonblocking` on `source` breaks in a type isolated as `isolation`, if any,
    /// after checking that the problem is attached to the attribute.
    private func nonblockingRule(
        _ source: String, in isolation: ExposedTypeIsolation, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String? {
        let function = try function(source, file: file, line: line)
        guard let problem = ExposedSignatureClassifier.nonblockingProblem(of: function, in: isolation) else {
            return nil
        }
        XCTAssertEqual(problem.node.as(AttributeSyntax.self)?.trimmedDescription, "@nonblocking", file: file, line: line)
        return problem.diagnostic.rule
    }

    private func function(_ source: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> FunctionDeclSyntax
    {
        let parsed = Parser.parse(source: source + " {}")
        let decl = parsed.statements.first?.item.as(FunctionDeclSyntax.self)
        return try XCTUnwrap(decl, "not a function: \(source)", file: file, line: line)
    }

    private func exposed(_ source: String, file: StaticString = #filePath, line: UInt = #line) throws -> ExposedMethod {
        switch ExposedSignatureClassifier.classify(try function(source, file: file, line: line)) {
        case .exposed(let method):
            return method
        case .rejected(let problems):
            let messages = problems.map(\.diagnostic.message)
            XCTFail("rejected: \(messages)", file: file, line: line)
            throw CancellationError()
        }
    }

    private func rejectedIDs(_ source: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        switch ExposedSignatureClassifier.classify(try function(source, file: file, line: line)) {
        case .exposed(let method):
            XCTFail("exposed: \(method)", file: file, line: line)
            return []
        case .rejected(let problems):
            return problems.map(\.diagnostic.rule)
        }
    }
}

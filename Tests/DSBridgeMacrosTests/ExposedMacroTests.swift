// SPDX-License-Identifier: MIT
import DSBridgeMacros
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosTestSupport
import XCTest

/// Expansion tests for `@Exposed`: one per accepted shape, one per diagnostic.
final class ExposedMacroTests: XCTestCase {
    private let macros: [String: MacroSpec] = [
        "Exposed": MacroSpec(type: ExposedMacro.self, conformances: ["ExposedInterface"]),
        "unexposed": MacroSpec(type: UnexposedMacro.self),
    ]

    // MARK: - Accepted shapes

    func testSynchronousMethodWithoutParametersIgnoresTheArgument() {
        assertMacroExpansion(
            """
            @Exposed
            final class Api {
                func noArg() -> Int { 1 }
            }
            """,
            expandedSource: """
                final class Api {
                    func noArg() -> Int { 1 }
                }

                \(conformance(
                    "Api", table: #"["noArg": .synchronous]"#,
                    synchronousCases: """
                        case "noArg":
                            return try DSBridge.ExposedResult.encode(self.noArg())
                        """))
                """,
            macroSpecs: macros)
    }

    func testSynchronousMethodWithOneParameterDecodesItAndUsesItsLabel() {
        assertMacroExpansion(
            """
            @Exposed
            final class Api {
                func testSyn(_ arg: String) -> String { arg }
                func greet(name: [String: Int]?) -> String { "" }
                func legacy(_ value: Int!) -> Int { 0 }
            }
            """,
            expandedSource: """
                final class Api {
                    func testSyn(_ arg: String) -> String { arg }
                    func greet(name: [String: Int]?) -> String { "" }
                    func legacy(_ value: Int!) -> Int { 0 }
                }

                \(conformance(
                    "Api", table: #"["testSyn": .synchronous, "greet": .synchronous, "legacy": .synchronous]"#,
                    synchronousCases: """
                        case "testSyn":
                            let value = try DSBridge.ExposedArgument.decode(String.self, from: argument, method: name)
                            return try DSBridge.ExposedResult.encode(self.testSyn(value))
                        case "greet":
                            let value = try DSBridge.ExposedArgument.decode([String: Int]?.self, from: argument, method: name)
                            return try DSBridge.ExposedResult.encode(self.greet(name: value))
                        case "legacy":
                            let value = try DSBridge.ExposedArgument.decode(Int?.self, from: argument, method: name)
                            return try DSBridge.ExposedResult.encode(self.legacy(value))
                        """))
                """,
            macroSpecs: macros)
    }

    func testSynchronousMethodWithoutResultRunsAndAnswersVoid() {
        assertMacroExpansion(
            """
            @Exposed
            struct Api {
                func log(line: String) {}
                func reset() -> Void {}
                func clear() -> () {}
            }
            """,
            expandedSource: """
                struct Api {
                    func log(line: String) {}
                    func reset() -> Void {}
                    func clear() -> () {}
                }

                \(conformance(
                    "Api", table: #"["log": .synchronous, "reset": .synchronous, "clear": .synchronous]"#,
                    synchronousCases: """
                        case "log":
                            let value = try DSBridge.ExposedArgument.decode(String.self, from: argument, method: name)
                            self.log(line: value)
                            return DSBridge.ExposedResult.void
                        case "reset":
                            self.reset()
                            return DSBridge.ExposedResult.void
                        case "clear":
                            self.clear()
                            return DSBridge.ExposedResult.void
                        """))
                """,
            macroSpecs: macros)
    }

    func testAsyncAndThrowingSynchronousMethodsAreAwaitedAndTried() {
        assertMacroExpansion(
            """
            @Exposed
            final class Api {
                func fetch(_ id: Int) async throws -> Item { Item() }
                func load() async -> Int { 1 }
                func check() throws {}
                func wait() async {}
            }
            """,
            expandedSource: """
                final class Api {
                    func fetch(_ id: Int) async throws -> Item { Item() }
                    func load() async -> Int { 1 }
                    func check() throws {}
                    func wait() async {}
                }

                \(conformance(
                    "Api",
                    table: #"["fetch": .synchronous, "load": .synchronous, "check": .synchronous, "wait": .synchronous]"#,
                    synchronousCases: """
                        case "fetch":
                            let value = try DSBridge.ExposedArgument.decode(Int.self, from: argument, method: name)
                            return try await DSBridge.ExposedResult.encode(self.fetch(value))
                        case "load":
                            return try await DSBridge.ExposedResult.encode(self.load())
                        case "check":
                            try self.check()
                            return DSBridge.ExposedResult.void
                        case "wait":
                            await self.wait()
                            return DSBridge.ExposedResult.void
                        """))
                """,
            macroSpecs: macros)
    }

    func testCompletionWithOneParameterCompletesWithItsOnlyDelivery() {
        assertMacroExpansion(
            """
            @Exposed
            final class Api {
                func once(_ x: Int, done: @escaping (String) -> Void) {}
            }
            """,
            expandedSource: """
                final class Api {
                    func once(_ x: Int, done: @escaping (String) -> Void) {}
                }

                \(conformance(
                    "Api", table: #"["once": .asynchronous]"#,
                    asynchronousCases: """
                        case "once":
                            let value = try DSBridge.ExposedArgument.decode(Int.self, from: argument, method: name)
                            self.once(value, done: { result in
                                completion(result)
                            })
                        """))
                """,
            macroSpecs: macros)
    }

    func testCompletionWithBoolFlagPassesTheCompleteFlag() {
        assertMacroExpansion(
            """
            @Exposed
            final class Api {
                func testAsyn(_ arg: String, handler: @escaping (String, Bool) -> Void) {}
            }
            """,
            expandedSource: """
                final class Api {
                    func testAsyn(_ arg: String, handler: @escaping (String, Bool) -> Void) {}
                }

                \(conformance(
                    "Api", table: #"["testAsyn": .asynchronous]"#,
                    asynchronousCases: """
                        case "testAsyn":
                            let value = try DSBridge.ExposedArgument.decode(String.self, from: argument, method: name)
                            self.testAsyn(value, handler: { result, complete in
                                completion(result, complete: complete)
                            })
                        """))
                """,
            macroSpecs: macros)
    }

    func testAsynchronousMethodWithoutValueParameterIgnoresTheArgument() {
        assertMacroExpansion(
            """
            @Exposed
            final class Api {
                func callProgress(_ handler: @escaping (Int, _ done: Swift.Bool) -> Void) {}
                func ping(reply: @escaping (String) -> ()) -> Void {}
            }
            """,
            expandedSource: """
                final class Api {
                    func callProgress(_ handler: @escaping (Int, _ done: Swift.Bool) -> Void) {}
                    func ping(reply: @escaping (String) -> ()) -> Void {}
                }

                \(conformance(
                    "Api", table: #"["callProgress": .asynchronous, "ping": .asynchronous]"#,
                    asynchronousCases: """
                        case "callProgress":
                            self.callProgress({ result, complete in
                                completion(result, complete: complete)
                            })
                        case "ping":
                            self.ping(reply: { result in
                                completion(result)
                            })
                        """))
                """,
            macroSpecs: macros)
    }

    func testSendableAndParenthesisedCompletionsOfAsyncThrowingMethodsAreAccepted() {
        assertMacroExpansion(
            """
            @Exposed
            final class Api {
                func stream(_ query: Query, progress: @escaping @Sendable (Int, Bool) -> Void) async throws {}
                func now(_ done: ((Int) -> Void)) throws {}
            }
            """,
            expandedSource: """
                final class Api {
                    func stream(_ query: Query, progress: @escaping @Sendable (Int, Bool) -> Void) async throws {}
                    func now(_ done: ((Int) -> Void)) throws {}
                }

                \(conformance(
                    "Api", table: #"["stream": .asynchronous, "now": .asynchronous]"#,
                    asynchronousCases: """
                        case "stream":
                            let value = try DSBridge.ExposedArgument.decode(Query.self, from: argument, method: name)
                            try await self.stream(value, progress: { result, complete in
                                completion(result, complete: complete)
                            })
                        case "now":
                            try self.now({ result in
                                completion(result)
                            })
                        """))
                """,
            macroSpecs: macros)
    }

    func testUnexposedMethodIsSkipped() {
        assertMacroExpansion(
            """
            @Exposed
            final class Api {
                @unexposed func secret(_ a: Int, _ b: Int) -> Int { a + b }
                @unexposed
                func hidden() {}
                func shown() {}
            }
            """,
            expandedSource: """
                final class Api {
                    func secret(_ a: Int, _ b: Int) -> Int { a + b }
                    func hidden() {}
                    func shown() {}
                }

                \(conformance(
                    "Api", table: #"["shown": .synchronous]"#,
                    synchronousCases: """
                        case "shown":
                            self.shown()
                            return DSBridge.ExposedResult.void
                        """))
                """,
            macroSpecs: macros)
    }

    func testPrivateStaticAndNonMethodMembersAreSkipped() {
        assertMacroExpansion(
            """
            @Exposed
            final class Api {
                let count = 1
                var name: String { "" }
                init() {}
                subscript(i: Int) -> Int { i }
                struct Nested {
                    func inner() {}
                }
                private func p(_ a: Any, _ b: Any) {}
                fileprivate func fp() {}
                static func s() {}
                class func c() {}
                internal func shown() -> Int { 1 }
            }
            """,
            expandedSource: """
                final class Api {
                    let count = 1
                    var name: String { "" }
                    init() {}
                    subscript(i: Int) -> Int { i }
                    struct Nested {
                        func inner() {}
                    }
                    private func p(_ a: Any, _ b: Any) {}
                    fileprivate func fp() {}
                    static func s() {}
                    class func c() {}
                    internal func shown() -> Int { 1 }
                }

                \(conformance(
                    "Api", table: #"["shown": .synchronous]"#,
                    synchronousCases: """
                        case "shown":
                            return try DSBridge.ExposedResult.encode(self.shown())
                        """))
                """,
            macroSpecs: macros)
    }

    func testActorMethodsAreCalledDirectlyAndAwaitedOnlyWhenAsync() {
        assertMacroExpansion(
            """
            @Exposed
            actor Counter {
                var value = 0
                func increment() -> Int { value += 1; return value }
                func slow() async -> Int { value }
                func tick(_ done: @escaping (Int) -> Void) { done(value) }
            }
            """,
            expandedSource: """
                actor Counter {
                    var value = 0
                    func increment() -> Int { value += 1; return value }
                    func slow() async -> Int { value }
                    func tick(_ done: @escaping (Int) -> Void) { done(value) }
                }

                \(conformance(
                    "Counter",
                    table: #"["increment": .synchronous, "slow": .synchronous, "tick": .asynchronous]"#,
                    synchronousCases: """
                        case "increment":
                            return try DSBridge.ExposedResult.encode(self.increment())
                        case "slow":
                            return try await DSBridge.ExposedResult.encode(self.slow())
                        """,
                    asynchronousCases: """
                        case "tick":
                            self.tick({ result in
                                completion(result)
                            })
                        """))
                """,
            macroSpecs: macros)
    }

    func testGlobalActorMethodsAreAwaitedUnlessTheTypeSharesTheActor() {
        assertMacroExpansion(
            """
            @Exposed
            final class Api {
                @MainActor func onMain() -> Int { 1 }
                @MainActor func report(_ done: @escaping (Int) -> Void) {}
            }
            @Exposed
            @MainActor final class MainApi {
                @MainActor func onMain() -> Int { 1 }
            }
            """,
            expandedSource: """
                final class Api {
                    @MainActor func onMain() -> Int { 1 }
                    @MainActor func report(_ done: @escaping (Int) -> Void) {}
                }
                @MainActor final class MainApi {
                    @MainActor func onMain() -> Int { 1 }
                }

                \(conformance(
                    "Api", table: #"["onMain": .synchronous, "report": .asynchronous]"#,
                    synchronousCases: """
                        case "onMain":
                            return try await DSBridge.ExposedResult.encode(self.onMain())
                        """,
                    asynchronousCases: """
                        case "report":
                            await self.report({ result in
                                completion(result)
                            })
                        """))

                \(conformance(
                    "MainApi", table: #"["onMain": .synchronous]"#,
                    synchronousCases: """
                        case "onMain":
                            return try DSBridge.ExposedResult.encode(self.onMain())
                        """))
                """,
            macroSpecs: macros)
    }

    func testStructIsSupported() {
        assertMacroExpansion(
            """
            @Exposed
            struct Echo {
                func syn(_ message: Message) -> Message { message }
            }
            """,
            expandedSource: """
                struct Echo {
                    func syn(_ message: Message) -> Message { message }
                }

                \(conformance(
                    "Echo", table: #"["syn": .synchronous]"#,
                    synchronousCases: """
                        case "syn":
                            let value = try DSBridge.ExposedArgument.decode(Message.self, from: argument, method: name)
                            return try DSBridge.ExposedResult.encode(self.syn(value))
                        """))
                """,
            macroSpecs: macros)
    }

    func testEnumIsSupported() {
        assertMacroExpansion(
            """
            @Exposed
            enum Mode {
                case a, b
                func describe() -> String { "" }
            }
            """,
            expandedSource: """
                enum Mode {
                    case a, b
                    func describe() -> String { "" }
                }

                \(conformance(
                    "Mode", table: #"["describe": .synchronous]"#,
                    synchronousCases: """
                        case "describe":
                            return try DSBridge.ExposedResult.encode(self.describe())
                        """))
                """,
            macroSpecs: macros)
    }

    func testPublicTypeGetsPublicMembers() {
        assertMacroExpansion(
            """
            @Exposed
            public struct Api {
                public func hello() -> String { "" }
            }
            """,
            expandedSource: """
                public struct Api {
                    public func hello() -> String { "" }
                }

                \(conformance(
                    "Api", access: "public ", table: #"["hello": .synchronous]"#,
                    synchronousCases: """
                        case "hello":
                            return try DSBridge.ExposedResult.encode(self.hello())
                        """))
                """,
            macroSpecs: macros)
    }

    func testPackageAndOpenTypesMirrorTheirAccessLevel() {
        assertMacroExpansion(
            """
            @Exposed
            package enum A {}
            @Exposed
            open class B {}
            @Exposed
            fileprivate struct C {}
            """,
            expandedSource: """
                package enum A {}
                open class B {}
                fileprivate struct C {}

                \(conformance("A", access: "package "))

                \(conformance("B", access: "public "))

                \(conformance("C"))
                """,
            macroSpecs: macros)
    }

    func testTypeWithoutExposedMethodsGetsAnEmptyConformance() {
        assertMacroExpansion(
            """
            @Exposed
            struct Empty {
            }
            """,
            expandedSource: """
                struct Empty {
                }

                \(conformance("Empty"))
                """,
            macroSpecs: macros)
    }

    func testBacktickedNameIsExposedWithoutBackticks() {
        assertMacroExpansion(
            """
            @Exposed
            struct Api {
                func `default`() -> Int { 0 }
            }
            """,
            expandedSource: """
                struct Api {
                    func `default`() -> Int { 0 }
                }

                \(conformance(
                    "Api", table: #"["default": .synchronous]"#,
                    synchronousCases: """
                        case "default":
                            return try DSBridge.ExposedResult.encode(self.`default`())
                        """))
                """,
            macroSpecs: macros)
    }

    func testTypeThatAlreadyConformsGetsMembersWithoutTheConformance() {
        assertMacroExpansion(
            """
            @Exposed
            struct Api: ExposedInterface {
            }
            """,
            expandedSource: """
                struct Api: ExposedInterface {
                }

                \(conformance("Api", declaresConformance: false))
                """,
            macros: ["Exposed": ExposedMacro.self])
    }

    // MARK: - Diagnostics

    func testProtocolIsRejected() {
        assertMacroExpansion(
            """
            @Exposed
            protocol Api {
                func f()
            }
            """,
            expandedSource: """
                protocol Api {
                    func f()
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Exposed cannot be attached to a protocol: it generates the ExposedInterface "
                        + "implementation of a concrete type; attach it to the class, struct, enum or actor itself",
                    line: 1, column: 1)
            ],
            macroSpecs: macros)
    }

    func testExtensionIsRejected() {
        assertMacroExpansion(
            """
            @Exposed
            extension Api {
                func f() {}
            }
            """,
            expandedSource: """
                extension Api {
                    func f() {}
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Exposed cannot be attached to an extension: it generates the ExposedInterface "
                        + "implementation of a concrete type; attach it to the class, struct, enum or actor itself",
                    line: 1, column: 1)
            ],
            macroSpecs: macros)
    }

    func testSynchronousMethodWithTwoParametersIsRejected() {
        assertRejected(
            "func add(_ a: Int, _ b: Int) -> Int { a + b }",
            message: "method 'add' cannot be exposed: a synchronous method takes at most one parameter because "
                + "a page passes one JSON value, but it has 2; take a Codable struct that holds them instead, "
                + "or mark it @unexposed to keep it away from pages",
            column: 24)
    }

    func testAsynchronousMethodWithTwoValueParametersIsRejected() {
        assertRejected(
            "func add(_ a: Int, _ b: Int, done: @escaping (Int) -> Void) {}",
            message: "method 'add' cannot be exposed: an asynchronous method takes at most one parameter before "
                + "its completion handler because a page passes one JSON value, but it has 2; take a Codable "
                + "struct that holds them instead, or mark it @unexposed to keep it away from pages",
            column: 24)
    }

    func testCompletionWithoutParametersIsRejected() {
        assertRejected(
            "func go(done: @escaping () -> Void) {}",
            message: "method 'go' cannot be exposed: its completion handler takes 0 parameters, but it must be "
                + "(Result) -> Void, or (Result, Bool) -> Void where the Bool says whether the call is complete; "
                + "change the handler, or mark it @unexposed to keep it away from pages",
            column: 29)
    }

    func testCompletionWithThreeParametersIsRejected() {
        assertRejected(
            "func go(done: @escaping (Int, Bool, String) -> Void) {}",
            message: "method 'go' cannot be exposed: its completion handler takes 3 parameters, but it must be "
                + "(Result) -> Void, or (Result, Bool) -> Void where the Bool says whether the call is complete; "
                + "change the handler, or mark it @unexposed to keep it away from pages",
            column: 29)
    }

    func testCompletionWhoseSecondParameterIsNotBoolIsRejected() {
        assertRejected(
            "func go(done: @escaping (Int, String) -> Void) {}",
            message: "method 'go' cannot be exposed: the second parameter of its completion handler is the "
                + "'complete' flag and must be Bool, not 'String'; pass further values inside the result, "
                + "or mark it @unexposed to keep it away from pages",
            column: 35)
    }

    func testCompletionReturningAValueIsRejected() {
        assertRejected(
            "func go(done: @escaping (Int) -> Bool) {}",
            message: "method 'go' cannot be exposed: its completion handler returns 'Bool', but a page never "
                + "answers a delivery, so it must return Void; change the handler, "
                + "or mark it @unexposed to keep it away from pages",
            column: 38)
    }

    func testGenericMethodIsRejected() {
        assertRejected(
            "func echo<T: Codable>(_ value: T) -> T { value }",
            message: "method 'echo' cannot be exposed: it is generic, and a page's JSON does not say which type "
                + "to decode; use a concrete Codable type or JSONValue, or mark it @unexposed to keep it away from pages",
            column: 14)
    }

    func testOpaqueParameterIsRejectedAsGeneric() {
        assertRejected(
            "func echo(_ value: some Codable) {}",
            message: "method 'echo' cannot be exposed: it is generic, and a page's JSON does not say which type "
                + "to decode; use a concrete Codable type or JSONValue, or mark it @unexposed to keep it away from pages",
            column: 24)
    }

    func testInoutParameterIsRejected() {
        assertRejected(
            "func bump(_ count: inout Int) {}",
            message: "method 'bump' cannot be exposed: parameter 'count' is inout, but a page never sees the "
                + "changed value; return it instead, or mark it @unexposed to keep it away from pages",
            column: 24)
    }

    func testVariadicParameterIsRejected() {
        assertRejected(
            "func sum(_ values: Int...) -> Int { 0 }",
            message: "method 'sum' cannot be exposed: parameter 'values' is variadic, but a page passes one JSON "
                + "value; take an array instead, or mark it @unexposed to keep it away from pages",
            column: 27)
    }

    func testOverloadedMethodsAreRejected() {
        assertMacroExpansion(
            """
            @Exposed
            struct Api {
                func find(id: Int) -> String { "" }
                func find(name: String) -> String { "" }
            }
            """,
            expandedSource: """
                struct Api {
                    func find(id: Int) -> String { "" }
                    func find(name: String) -> String { "" }
                }

                \(conformance(
                    "Api", table: #"["find": .synchronous]"#,
                    synchronousCases: """
                        case "find":
                            let value = try DSBridge.ExposedArgument.decode(Int.self, from: argument, method: name)
                            return try DSBridge.ExposedResult.encode(self.find(id: value))
                        """))
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "method 'find' cannot be exposed: another exposed method is also named 'find', and "
                        + "DSBridge names methods by base name only, so a page could not tell them apart; rename "
                        + "one, or mark it @unexposed to keep it away from pages",
                    line: 4, column: 10)
            ],
            macroSpecs: macros)
    }

    func testAnyParameterIsRejected() {
        assertRejected(
            "func take(_ value: Any) {}",
            message: anyMessage("take", "Any"),
            column: 24)
    }

    func testOptionalAnyAndAnyObjectAreRejected() {
        assertRejected(
            "func take(_ value: Any?) {}",
            message: anyMessage("take", "Any?"),
            column: 24)
        assertRejected(
            "func take(_ value: AnyObject) {}",
            message: anyMessage("take", "AnyObject"),
            column: 24)
    }

    func testAnyCollectionsAreRejectedAsResultsAndCompletionValues() {
        assertRejected(
            "func dict() -> [String: Any] { [:] }",
            message: anyMessage("dict", "[String: Any]"),
            column: 20)
        assertRejected(
            "func list(_ done: @escaping ([Any]) -> Void) {}",
            message: anyMessage("list", "[Any]"),
            column: 34)
    }

    func testMethodNameWithDotIsRejected() {
        assertRejected(
            "func `a.b`() {}",
            message: "method 'a.b' cannot be exposed: a DSBridge method name cannot contain '.', which separates "
                + "the namespace from the method; rename it, or mark it @unexposed to keep it away from pages",
            column: 10)
    }

    func testMutatingMethodIsRejected() {
        assertRejected(
            "mutating func bump() {}",
            message: "method 'bump' cannot be exposed: it is mutating, but an interface is shared by every session "
                + "and never mutated; keep changing state in a class or an actor, "
                + "or mark it @unexposed to keep it away from pages",
            column: 5)
    }

    func testOptionalCompletionIsRejectedAsAFunctionParameter() {
        assertRejected(
            "func go(done: ((Int) -> Void)?) {}",
            message: "method 'go' cannot be exposed: parameter 'done' is a function, which a page cannot pass; "
                + "only the last parameter may be a function, a non-optional completion handler of a method "
                + "without a result, so change it, or mark it @unexposed to keep it away from pages",
            column: 19)
    }

    // MARK: - Helpers

    private func anyMessage(_ method: String, _ type: String) -> String {
        "method '\(method)' cannot be exposed: '\(type)' is not JSON. DSBridge passes JSON: use a Codable type "
            + "or JSONValue instead of Any, or mark it @unexposed to keep it away from pages"
    }

    /// Asserts that `method`, the only member of a struct, is rejected with `message` at
    /// `column` of its line (line 3), and that the struct still gets an empty conformance.
    private func assertRejected(
        _ method: String, message: String, column: Int, file: StaticString = #filePath, line: UInt = #line
    ) {
        assertMacroExpansion(
            """
            @Exposed
            struct Api {
                \(method)
            }
            """,
            expandedSource: """
                struct Api {
                    \(method)
                }

                \(conformance("Api"))
                """,
            diagnostics: [DiagnosticSpec(message: message, line: 3, column: column)],
            macroSpecs: macros, file: file, line: line)
    }

    /// The extension `@Exposed` generates for `type`, with `synchronousCases` and
    /// `asynchronousCases` (unindented `case` clauses) in the two switches.
    private func conformance(
        _ type: String, access: String = "", table: String = "[:]", synchronousCases: String = "",
        asynchronousCases: String = "", declaresConformance: Bool = true
    ) -> String {
        func indented(_ cases: String) -> String {
            cases.isEmpty ? "" : cases.split(separator: "\n").map { "\n        " + $0 }.joined()
        }
        return """
            extension \(type)\(declaresConformance ? ": DSBridge.ExposedInterface" : "") {
                \(access)nonisolated static var exposedMethods: [String: DSBridge.ExposedMethodKind] {
                    \(table)
                }
                \(access)func callSynchronousMethod(named name: String, with argument: DSBridge.JSONValue) async throws -> DSBridge.JSONValue {
                    switch name {\(indented(synchronousCases))
                    default:
                        throw DSBridge.ExposedCallError.methodNotFound(name)
                    }
                }
                \(access)func callAsynchronousMethod(named name: String, with argument: DSBridge.JSONValue, completion: DSBridge.ExposedCompletion) async throws {
                    switch name {\(indented(asynchronousCases))
                    default:
                        throw DSBridge.ExposedCallError.methodNotFound(name)
                    }
                }
            }
            """
    }
}

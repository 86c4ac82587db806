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
        "nonblocking": MacroSpec(type: NonblockingMacro.self),
        "idempotent": MacroSpec(type: IdempotentMacro.self),
    ]

    // MARK: - Accepted shapes

    func testSynchronousMethodWithoutParametersIgnoresTheArgument() {
        let cases = """
            case "noArg":
                return try DSBridge.ExposedResult.encode(self.noArg())
            """
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
                    synchronousCases: cases, nonSuspendingSynchronousCases: cases))
                """,
            macroSpecs: macros)
    }

    func testSynchronousMethodWithOneParameterDecodesItAndUsesItsLabel() {
        let cases = """
            case "testSyn":
                let value = try DSBridge.ExposedArgument.decode(String.self, from: argument, method: name)
                return try DSBridge.ExposedResult.encode(self.testSyn(value))
            case "greet":
                let value = try DSBridge.ExposedArgument.decode([String: Int]?.self, from: argument, method: name)
                return try DSBridge.ExposedResult.encode(self.greet(name: value))
            case "legacy":
                let value = try DSBridge.ExposedArgument.decode(Int?.self, from: argument, method: name)
                return try DSBridge.ExposedResult.encode(self.legacy(value))
            """
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
                    synchronousCases: cases, nonSuspendingSynchronousCases: cases))
                """,
            macroSpecs: macros)
    }

    func testSynchronousMethodWithoutResultRunsAndAnswersVoid() {
        let cases = """
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
            """
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
                    synchronousCases: cases, nonSuspendingSynchronousCases: cases))
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
                        """,
                    nonSuspendingSynchronousCases: """
                        case "check":
                            try self.check()
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
                        """,
                    nonSuspendingAsynchronousCases: """
                        case "once":
                            let value = try DSBridge.ExposedArgument.decode(Int.self, from: argument, method: name)
                            self.once(value, done: { result in
                                completion(result)
                            })
                            return true
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
                        """,
                    nonSuspendingAsynchronousCases: """
                        case "testAsyn":
                            let value = try DSBridge.ExposedArgument.decode(String.self, from: argument, method: name)
                            self.testAsyn(value, handler: { result, complete in
                                completion(result, complete: complete)
                            })
                            return true
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
                        """,
                    nonSuspendingAsynchronousCases: """
                        case "callProgress":
                            self.callProgress({ result, complete in
                                completion(result, complete: complete)
                            })
                            return true
                        case "ping":
                            self.ping(reply: { result in
                                completion(result)
                            })
                            return true
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
                        """,
                    nonSuspendingAsynchronousCases: """
                        case "now":
                            try self.now({ result in
                                completion(result)
                            })
                            return true
                        """))
                """,
            macroSpecs: macros)
    }

    func testUnexposedMethodIsSkipped() {
        let cases = """
            case "shown":
                self.shown()
                return DSBridge.ExposedResult.void
            """
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
                    synchronousCases: cases, nonSuspendingSynchronousCases: cases))
                """,
            macroSpecs: macros)
    }

    func testPrivateStaticAndNonMethodMembersAreSkipped() {
        let cases = """
            case "shown":
                return try DSBridge.ExposedResult.encode(self.shown())
            """
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
                    synchronousCases: cases, nonSuspendingSynchronousCases: cases))
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
        let cases = """
            case "syn":
                let value = try DSBridge.ExposedArgument.decode(Message.self, from: argument, method: name)
                return try DSBridge.ExposedResult.encode(self.syn(value))
            """
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
                    synchronousCases: cases, nonSuspendingSynchronousCases: cases))
                """,
            macroSpecs: macros)
    }

    func testEnumIsSupported() {
        let cases = """
            case "describe":
                return try DSBridge.ExposedResult.encode(self.describe())
            """
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
                    synchronousCases: cases, nonSuspendingSynchronousCases: cases))
                """,
            macroSpecs: macros)
    }

    func testPublicTypeGetsPublicMembers() {
        let cases = """
            case "hello":
                return try DSBridge.ExposedResult.encode(self.hello())
            """
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
                    synchronousCases: cases, nonSuspendingSynchronousCases: cases))
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
        let cases = """
            case "default":
                return try DSBridge.ExposedResult.encode(self.`default`())
            """
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
                    synchronousCases: cases, nonSuspendingSynchronousCases: cases))
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

    // MARK: - Non-suspending entry points and @nonblocking

    func testNonblockingMethodsAreListed() {
        let synchronousCases = """
            case "syn":
                let value = try DSBridge.ExposedArgument.decode(Int.self, from: argument, method: name)
                return try DSBridge.ExposedResult.encode(self.syn(value))
            case "plain":
                self.plain()
                return DSBridge.ExposedResult.void
            """
        assertMacroExpansion(
            """
            @Exposed
            struct Api {
                @nonblocking func syn(_ x: Int) -> Int { x }
                @nonblocking
                func start(_ done: @escaping (Int) -> Void) {}
                func plain() {}
            }
            """,
            expandedSource: """
                struct Api {
                    func syn(_ x: Int) -> Int { x }
                    func start(_ done: @escaping (Int) -> Void) {}
                    func plain() {}
                }

                \(conformance(
                    "Api", table: #"["syn": .synchronous, "start": .asynchronous, "plain": .synchronous]"#,
                    nonblocking: #"["syn", "start"]"#,
                    synchronousCases: synchronousCases,
                    asynchronousCases: """
                        case "start":
                            self.start({ result in
                                completion(result)
                            })
                        """,
                    nonSuspendingSynchronousCases: synchronousCases,
                    nonSuspendingAsynchronousCases: """
                        case "start":
                            self.start({ result in
                                completion(result)
                            })
                            return true
                        """))
                """,
            macroSpecs: macros)
    }

    func testIdempotentMethodsAreListed() {
        let cases = """
            case "find":
                let value = try DSBridge.ExposedArgument.decode(Int.self, from: argument, method: name)
                return try DSBridge.ExposedResult.encode(self.find(value))
            """
        assertMacroExpansion(
            """
            @Exposed
            struct Api {
                @idempotent func find(_ id: Int) -> Int { id }
                @idempotent @unexposed func hidden(_ a: Int, _ b: Int) {}
                func load(_ id: Int) async -> Int { id }
            }
            """,
            expandedSource: """
                struct Api {
                    func find(_ id: Int) -> Int { id }
                    func hidden(_ a: Int, _ b: Int) {}
                    func load(_ id: Int) async -> Int { id }
                }

                \(conformance(
                    "Api", table: #"["find": .synchronous, "load": .synchronous]"#, idempotent: #"["find"]"#,
                    synchronousCases: cases + """

                        case "load":
                            let value = try DSBridge.ExposedArgument.decode(Int.self, from: argument, method: name)
                            return try await DSBridge.ExposedResult.encode(self.load(value))
                        """,
                    nonSuspendingSynchronousCases: cases))
                """,
            macroSpecs: macros)
    }

    func testNonblockingUnexposedMethodIsSkipped() {
        let cases = """
            case "shown":
                self.shown()
                return DSBridge.ExposedResult.void
            """
        assertMacroExpansion(
            """
            @Exposed
            struct Api {
                @nonblocking @unexposed func hidden(_ a: Int, _ b: Int) async {}
                @nonblocking func shown() {}
            }
            """,
            expandedSource: """
                struct Api {
                    func hidden(_ a: Int, _ b: Int) async {}
                    func shown() {}
                }

                \(conformance(
                    "Api", table: #"["shown": .synchronous]"#, nonblocking: #"["shown"]"#,
                    synchronousCases: cases, nonSuspendingSynchronousCases: cases))
                """,
            macroSpecs: macros)
    }

    func testAsyncAndGlobalActorMethodsAreLeftOutOfTheNonSuspendingEntryPoints() {
        assertMacroExpansion(
            """
            @Exposed
            final class Api {
                func now() -> Int { 1 }
                func later() async -> Int { 1 }
                @MainActor func onMain() -> Int { 1 }
                func start(_ done: @escaping (Int) -> Void) {}
                func startLater(_ done: @escaping (Int) -> Void) async {}
                @MainActor func startOnMain(_ done: @escaping (Int) -> Void) {}
            }
            """,
            expandedSource: """
                final class Api {
                    func now() -> Int { 1 }
                    func later() async -> Int { 1 }
                    @MainActor func onMain() -> Int { 1 }
                    func start(_ done: @escaping (Int) -> Void) {}
                    func startLater(_ done: @escaping (Int) -> Void) async {}
                    @MainActor func startOnMain(_ done: @escaping (Int) -> Void) {}
                }

                \(conformance(
                    "Api",
                    table: #"["now": .synchronous, "later": .synchronous, "onMain": .synchronous, "#
                        + #""start": .asynchronous, "startLater": .asynchronous, "startOnMain": .asynchronous]"#,
                    synchronousCases: """
                        case "now":
                            return try DSBridge.ExposedResult.encode(self.now())
                        case "later":
                            return try await DSBridge.ExposedResult.encode(self.later())
                        case "onMain":
                            return try await DSBridge.ExposedResult.encode(self.onMain())
                        """,
                    asynchronousCases: """
                        case "start":
                            self.start({ result in
                                completion(result)
                            })
                        case "startLater":
                            await self.startLater({ result in
                                completion(result)
                            })
                        case "startOnMain":
                            await self.startOnMain({ result in
                                completion(result)
                            })
                        """,
                    nonSuspendingSynchronousCases: """
                        case "now":
                            return try DSBridge.ExposedResult.encode(self.now())
                        """,
                    nonSuspendingAsynchronousCases: """
                        case "start":
                            self.start({ result in
                                completion(result)
                            })
                            return true
                        """))
                """,
            macroSpecs: macros)
    }

    func testActorsAndGlobalActorTypesGetNeitherNonSuspendingEntryPoint() {
        assertMacroExpansion(
            """
            @Exposed
            actor Counter {
                func increment() -> Int { 1 }
            }
            @Exposed
            @MainActor struct MainApi {
                func name() -> String { "" }
            }
            @Exposed
            @DatabaseActor final class Store {
                func start(_ done: @escaping (Int) -> Void) {}
            }
            """,
            expandedSource: """
                actor Counter {
                    func increment() -> Int { 1 }
                }
                @MainActor struct MainApi {
                    func name() -> String { "" }
                }
                @DatabaseActor final class Store {
                    func start(_ done: @escaping (Int) -> Void) {}
                }

                \(conformance(
                    "Counter", table: #"["increment": .synchronous]"#,
                    synchronousCases: """
                        case "increment":
                            return try DSBridge.ExposedResult.encode(self.increment())
                        """))

                \(conformance(
                    "MainApi", table: #"["name": .synchronous]"#,
                    synchronousCases: """
                        case "name":
                            return try DSBridge.ExposedResult.encode(self.name())
                        """))

                \(conformance(
                    "Store", table: #"["start": .asynchronous]"#,
                    asynchronousCases: """
                        case "start":
                            self.start({ result in
                                completion(result)
                            })
                        """))
                """,
            macroSpecs: macros)
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
        let cases = """
            case "find":
                let value = try DSBridge.ExposedArgument.decode(Int.self, from: argument, method: name)
                return try DSBridge.ExposedResult.encode(self.find(id: value))
            """
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
                    synchronousCases: cases, nonSuspendingSynchronousCases: cases))
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

    func testNonblockingAsyncMethodIsDiagnosedAndExposedAsIfUnmarked() {
        assertMacroExpansion(
            """
            @Exposed
            struct Api {
                @nonblocking func load() async -> Int { 1 }
            }
            """,
            expandedSource: """
                struct Api {
                    func load() async -> Int { 1 }
                }

                \(conformance(
                    "Api", table: #"["load": .synchronous]"#,
                    synchronousCases: """
                        case "load":
                            return try await DSBridge.ExposedResult.encode(self.load())
                        """))
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: nonblockingMessage("load", "it is async, and the network thread cannot wait for it to resume"),
                    line: 3, column: 5)
            ],
            macroSpecs: macros)
    }

    func testNonblockingMethodOfAnActorIsDiagnosedAndExposedAsIfUnmarked() {
        assertMacroExpansion(
            """
            @Exposed
            actor Counter {
                @nonblocking func increment() -> Int { 1 }
            }
            """,
            expandedSource: """
                actor Counter {
                    func increment() -> Int { 1 }
                }

                \(conformance(
                    "Counter", table: #"["increment": .synchronous]"#,
                    synchronousCases: """
                        case "increment":
                            return try DSBridge.ExposedResult.encode(self.increment())
                        """))
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: nonblockingMessage(
                        "increment", "it belongs to an actor, and the network thread cannot wait for an actor"),
                    line: 3, column: 5)
            ],
            macroSpecs: macros)
    }

    func testNonblockingMethodOfAGlobalActorTypeIsDiagnosedAndExposedAsIfUnmarked() {
        assertMacroExpansion(
            """
            @Exposed
            @MainActor final class Api {
                @nonblocking func name() -> String { "" }
            }
            """,
            expandedSource: """
                @MainActor final class Api {
                    func name() -> String { "" }
                }

                \(conformance(
                    "Api", table: #"["name": .synchronous]"#,
                    synchronousCases: """
                        case "name":
                            return try DSBridge.ExposedResult.encode(self.name())
                        """))
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: nonblockingMessage(
                        "name", "its type is isolated to 'MainActor', and the network thread cannot wait for an actor"),
                    line: 3, column: 5)
            ],
            macroSpecs: macros)
    }

    func testNonblockingGlobalActorMethodIsDiagnosedAndExposedAsIfUnmarked() {
        assertMacroExpansion(
            """
            @Exposed
            final class Api {
                @nonblocking @MainActor func name() -> String { "" }
            }
            """,
            expandedSource: """
                final class Api {
                    @MainActor func name() -> String { "" }
                }

                \(conformance(
                    "Api", table: #"["name": .synchronous]"#,
                    synchronousCases: """
                        case "name":
                            return try await DSBridge.ExposedResult.encode(self.name())
                        """))
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: nonblockingMessage(
                        "name", "it is isolated to 'MainActor', and the network thread cannot wait for an actor"),
                    line: 3, column: 5)
            ],
            macroSpecs: macros)
    }

    func testMisplacedNonblockingIsReportedAlongsideTheReasonsAMethodIsRejected() {
        assertMacroExpansion(
            """
            @Exposed
            struct Api {
                @nonblocking func add(_ a: Int, _ b: Int) async -> Int { a + b }
            }
            """,
            expandedSource: """
                struct Api {
                    func add(_ a: Int, _ b: Int) async -> Int { a + b }
                }

                \(conformance("Api"))
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: nonblockingMessage("add", "it is async, and the network thread cannot wait for it to resume"),
                    line: 3, column: 5),
                DiagnosticSpec(
                    message: "method 'add' cannot be exposed: a synchronous method takes at most one parameter "
                        + "because a page passes one JSON value, but it has 2; take a Codable struct that holds "
                        + "them instead, or mark it @unexposed to keep it away from pages",
                    line: 3, column: 37),
            ],
            macroSpecs: macros)
    }

    // MARK: - Helpers

    private func nonblockingMessage(_ method: String, _ why: String) -> String {
        "method '\(method)' cannot be @nonblocking: \(why); remove @nonblocking (pages can still call the "
            + "method; it then runs off the network thread)"
    }

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
    /// `asynchronousCases` (unindented `case` clauses) in the two switches of the awaited entry
    /// points and `nonSuspendingSynchronousCases` and `nonSuspendingAsynchronousCases` in those
    /// of the `…WithoutSuspending` ones. `nonblocking` is the literal of `nonblockingMethods`,
    /// `idempotent` that of `idempotentMethods`.
    /// Each optional member is expected only when it has content, as the generator omits it.
    private func conformance(
        _ type: String, access: String = "", table: String = "[:]", nonblocking: String = "", idempotent: String = "",
        synchronousCases: String = "", asynchronousCases: String = "",
        nonSuspendingSynchronousCases: String = "", nonSuspendingAsynchronousCases: String = "",
        declaresConformance: Bool = true
    ) -> String {
        func indented(_ cases: String) -> String {
            cases.isEmpty ? "" : cases.split(separator: "\n").map { "\n        " + $0 }.joined()
        }
        var members = [
            """
                \(access)nonisolated static var exposedMethods: [String: DSBridge.ExposedMethodKind] {
                    \(table)
                }
            """
        ]
        if !nonblocking.isEmpty {
            members.append(
                """
                    \(access)nonisolated static var nonblockingMethods: Set<String> {
                        \(nonblocking)
                    }
                """)
        }
        if !idempotent.isEmpty {
            members.append(
                """
                    \(access)nonisolated static var idempotentMethods: Set<String> {
                        \(idempotent)
                    }
                """)
        }
        members.append(
            """
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
            """)
        if !nonSuspendingSynchronousCases.isEmpty {
            members.append(
                """
                    \(access)func callSynchronousMethodWithoutSuspending(named name: String, with argument: DSBridge.JSONValue) throws -> DSBridge.JSONValue? {
                        switch name {\(indented(nonSuspendingSynchronousCases))
                        default:
                            return nil
                        }
                    }
                """)
        }
        if !nonSuspendingAsynchronousCases.isEmpty {
            members.append(
                """
                    \(access)func callAsynchronousMethodWithoutSuspending(named name: String, with argument: DSBridge.JSONValue, completion: DSBridge.ExposedCompletion) throws -> Bool {
                        switch name {\(indented(nonSuspendingAsynchronousCases))
                        default:
                            return false
                        }
                    }
                """)
        }
        let conformance = declaresConformance ? ": DSBridge.ExposedInterface" : ""
        return "extension \(type)\(conformance) {\n\(members.joined(separator: "\n"))\n}"
    }
}

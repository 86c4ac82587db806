// SPDX-License-Identifier: MIT
import DSBridge
import Synchronization
import Testing

// Real `@Exposed` types: that this file compiles without warnings in Swift 6 mode is half
// of the test; the other half calls them through `ExposedInterface` as the dispatcher does.

struct Point: Codable, Equatable, Sendable {
    var x: Int
    var y: Int
}

struct GeometryError: Error, Equatable {
    let reason: String
}

@Exposed
final class Geometry {
    func testSyn(_ arg: String) -> String { arg + "[ syn call]" }
    func origin() -> Point { Point(x: 0, y: 0) }
    func translate(_ point: Point) -> Point { Point(x: point.x + 1, y: point.y + 1) }
    func double(value: Int) -> Int { value * 2 }
    func greeting(_ name: String?) -> String? { name.map { "hello \($0)" } }
    func raw(_ value: JSONValue) -> JSONValue { value }
    func fail() throws -> Int { throw GeometryError(reason: "no") }
    func touch() {}
    func testAsyn(_ arg: String, handler: @escaping (String, Bool) -> Void) { handler(arg + " [ asyn call]", true) }
    func countdown(_ from: Int, progress: @escaping (Int, Bool) -> Void) {
        for i in stride(from: from, through: 0, by: -1) { progress(i, i == 0) }
    }
    @unexposed func hidden() -> Int { 0 }
    private func secret() -> Int { 0 }
}

@Exposed
struct Echo {
    func syn(_ point: Point) -> Point { point }
    func asyn(_ point: Point, done: @escaping @Sendable (Point) -> Void) { done(point) }
    func fetch(_ id: Int) async throws -> Point {
        await Task.yield()
        guard id >= 0 else { throw GeometryError(reason: "negative id") }
        return Point(x: id, y: id)
    }
    func later(_ done: @escaping (String?) -> Void) async throws {
        await Task.yield()
        done(nil)
    }
}

@Exposed
enum Constants {
    case only
    func answer() -> Int { 42 }
    func tick(_ done: (Int) -> Void) throws { done(1) }
    func each(_ done: (Int) throws -> Void) rethrows { try done(3) }
}

@Exposed
actor Counter {
    private var value = 0
    func increment() -> Int {
        value += 1
        return value
    }
    func add(by amount: Int) async -> Int {
        await Task.yield()
        value += amount
        return value
    }
    func reset() { value = 0 }
    func stream(_ count: Int, progress: @escaping @Sendable (Int, Bool) -> Void) async throws {
        for i in 1...count {
            await Task.yield()
            progress(i, i == count)
        }
    }
    func current(_ done: @escaping (Int) -> Void) { done(value) }
}

@Exposed
@MainActor
final class MainActorApi {
    var title = "main"
    func name() -> String { title }
    func later(_ done: @escaping (String) -> Void) { done(title) }
}

@Exposed
final class MixedIsolation: Sendable {
    @MainActor func onMain() -> Int { 7 }
    func anywhere() -> Int { 8 }
}

@Exposed
struct Box<Value: Codable & Sendable>: Sendable {
    let value: Value
    func get() -> Value { value }
}

enum Outer {
    @Exposed
    struct Inner {
        func ping() -> String { "pong" }
    }
}

@Exposed
struct Quick {
    @nonblocking @idempotent func syn(_ x: Int) -> Int { x * 10 }
    @idempotent func slow(_ x: Int) async -> Int { x }
    @nonblocking func start(_ x: Int, done: @escaping (Int) -> Void) { done(x + 1) }
    func startLater(_ x: Int, done: @escaping (Int) -> Void) async { done(x) }
}

@Exposed
public struct PublicGreeter {
    public func hello() -> String { "hi" }
}

/// `value` with object members sorted by key, at every depth: Foundation's `JSONEncoder` does
/// not keep the order of a `Codable` struct's members, so encoded structs are compared sorted.
func sorted(_ value: JSONValue) -> JSONValue {
    switch value {
    case .object(let members):
        var sortedMembers = JSONObject()
        for key in members.keys.sorted() { sortedMembers[key] = members[key].map(sorted) }
        return .object(sortedMembers)
    case .array(let elements): return .array(elements.map(sorted))
    default: return value
    }
}

/// An `ExposedCompletion` that keeps what it receives, in order.
final class DeliveryRecorder: Sendable {
    enum Delivery: Equatable {
        case value(JSONValue, complete: Bool)
        case failure(String)
    }

    private let storage = Mutex<[Delivery]>([])

    var completion: ExposedCompletion {
        ExposedCompletion { delivery in
            let recorded: Delivery
            switch delivery {
            case .value(let value, let complete): recorded = .value(value, complete: complete)
            case .failure(let message): recorded = .failure(message)
            }
            self.storage.withLock { $0.append(recorded) }
        }
    }

    var deliveries: [Delivery] { storage.withLock { $0 } }
}

@Suite("@Exposed interfaces called through ExposedInterface")
struct ExposedInterfaceTests {
    let geometry = Geometry()

    // MARK: - Tables

    @Test func exposedMethodsListsEveryExposedMethodWithItsKind() {
        #expect(
            Geometry.exposedMethods == [
                "testSyn": .synchronous, "origin": .synchronous, "translate": .synchronous,
                "double": .synchronous, "greeting": .synchronous, "raw": .synchronous, "fail": .synchronous,
                "touch": .synchronous, "testAsyn": .asynchronous, "countdown": .asynchronous,
            ])
        #expect(Echo.exposedMethods == ["syn": .synchronous, "asyn": .asynchronous, "fetch": .synchronous, "later": .asynchronous])
        #expect(Constants.exposedMethods == ["answer": .synchronous, "tick": .asynchronous, "each": .asynchronous])
        #expect(
            Counter.exposedMethods == [
                "increment": .synchronous, "add": .synchronous, "reset": .synchronous, "stream": .asynchronous,
                "current": .asynchronous,
            ])
        #expect(PublicGreeter.exposedMethods == ["hello": .synchronous])
    }

    @Test func hasMethodFollowsTheTable() {
        #expect(geometry.hasMethod(named: "testSyn"))
        #expect(geometry.hasMethod(named: "testSyn", isSynchronous: true))
        #expect(!geometry.hasMethod(named: "testSyn", isSynchronous: false))
        #expect(geometry.hasMethod(named: "testAsyn", isSynchronous: false))
        #expect(!geometry.hasMethod(named: "hidden"))
        #expect(!geometry.hasMethod(named: "secret"))
    }

    // MARK: - Synchronous calls

    @Test func synchronousMethodAnswersItsResult() async throws {
        #expect(try await geometry.callSynchronousMethod(named: "testSyn", with: "Hello") == "Hello[ syn call]")
        #expect(try await geometry.callSynchronousMethod(named: "double", with: 21) == 42)
    }

    @Test func methodWithoutParametersIgnoresTheArgument() async throws {
        #expect(try await sorted(geometry.callSynchronousMethod(named: "origin", with: nil)) == ["x": 0, "y": 0])
        #expect(
            try await sorted(geometry.callSynchronousMethod(named: "origin", with: ["any": true])) == ["x": 0, "y": 0])
    }

    @Test func codableStructsAreDecodedAndEncoded() async throws {
        let moved = try await geometry.callSynchronousMethod(named: "translate", with: ["x": 1, "y": 2])
        #expect(sorted(moved) == ["x": 2, "y": 3])
        #expect(try await sorted(Echo().callSynchronousMethod(named: "syn", with: ["x": 5, "y": 6])) == ["x": 5, "y": 6])
    }

    @Test func methodWithoutResultAnswersEmptyString() async throws {
        #expect(try await geometry.callSynchronousMethod(named: "touch", with: nil) == "")
        #expect(try await Counter().callSynchronousMethod(named: "reset", with: nil) == "")
    }

    @Test func optionalParameterAcceptsNullAndNilResultAnswersEmptyString() async throws {
        #expect(try await geometry.callSynchronousMethod(named: "greeting", with: "Ann") == "hello Ann")
        #expect(try await geometry.callSynchronousMethod(named: "greeting", with: nil) == "")
    }

    @Test func jsonValueResultIsAnsweredAsIsNullIncluded() async throws {
        #expect(try await geometry.callSynchronousMethod(named: "raw", with: nil) == .null)
        #expect(try await geometry.callSynchronousMethod(named: "raw", with: [1, "a"]) == [1, "a"])
    }

    @Test func asyncThrowingMethodIsAwaitedAndItsErrorPropagates() async throws {
        let echo = Echo()
        #expect(try await sorted(echo.callSynchronousMethod(named: "fetch", with: 7)) == ["x": 7, "y": 7])
        await #expect(throws: GeometryError(reason: "negative id")) {
            try await echo.callSynchronousMethod(named: "fetch", with: -1)
        }
    }

    @Test func errorThrownByTheMethodPropagates() async {
        await #expect(throws: GeometryError(reason: "no")) {
            try await geometry.callSynchronousMethod(named: "fail", with: nil)
        }
    }

    @Test func enumAndActorMethodsAreCalled() async throws {
        #expect(try await Constants.only.callSynchronousMethod(named: "answer", with: nil) == 42)
        let counter = Counter()
        #expect(try await counter.callSynchronousMethod(named: "increment", with: nil) == 1)
        #expect(try await counter.callSynchronousMethod(named: "add", with: 10) == 11)
        #expect(try await PublicGreeter().callSynchronousMethod(named: "hello", with: nil) == "hi")
    }

    @Test func globalActorIsolatedTypesAndMethodsAreCalled() async throws {
        let api = MainActorApi()
        #expect(MainActorApi.exposedMethods == ["name": .synchronous, "later": .asynchronous])
        #expect(try await api.callSynchronousMethod(named: "name", with: nil) == "main")
        let recorder = DeliveryRecorder()
        try await api.callAsynchronousMethod(named: "later", with: nil, completion: recorder.completion)
        #expect(recorder.deliveries == [.value("main", complete: true)])
        let mixed = MixedIsolation()
        #expect(try await mixed.callSynchronousMethod(named: "onMain", with: nil) == 7)
        #expect(try await mixed.callSynchronousMethod(named: "anywhere", with: nil) == 8)
    }

    @Test func genericAndNestedTypesAreExposed() async throws {
        #expect(try await Box(value: [1, 2]).callSynchronousMethod(named: "get", with: nil) == [1, 2])
        #expect(try await Outer.Inner().callSynchronousMethod(named: "ping", with: nil) == "pong")
    }

    // MARK: - Calls without suspending

    @Test func nonblockingMethodsListsTheMarkedMethods() {
        #expect(Quick.nonblockingMethods == ["syn", "start"])
        #expect(Geometry.nonblockingMethods.isEmpty)
        #expect(Counter.nonblockingMethods.isEmpty)
    }

    @Test func idempotentMethodsListsTheMarkedMethods() {
        #expect(Quick.idempotentMethods == ["syn", "slow"])
        #expect(Geometry.idempotentMethods.isEmpty)
    }

    @Test func synchronousMethodIsCalledWithoutSuspending() throws {
        #expect(try Quick().callSynchronousMethodWithoutSuspending(named: "syn", with: 2) == 20)
        #expect(try geometry.callSynchronousMethodWithoutSuspending(named: "testSyn", with: "Hi") == "Hi[ syn call]")
        #expect(try geometry.callSynchronousMethodWithoutSuspending(named: "touch", with: nil) == "")
        #expect(try MixedIsolation().callSynchronousMethodWithoutSuspending(named: "anywhere", with: nil) == 8)
    }

    @Test func methodsThatSuspendOrAreUnknownAnswerNilWithoutSuspending() throws {
        let quick = Quick()
        for name in ["slow", "start", "nope"] {
            #expect(try quick.callSynchronousMethodWithoutSuspending(named: name, with: 1) == nil, "\(name)")
        }
        #expect(try Echo().callSynchronousMethodWithoutSuspending(named: "fetch", with: 1) == nil)
        #expect(try MixedIsolation().callSynchronousMethodWithoutSuspending(named: "onMain", with: nil) == nil)
        #expect(try Counter().callSynchronousMethodWithoutSuspending(named: "increment", with: nil) == nil)
    }

    @Test func badArgumentThrowsWithoutSuspending() {
        let error = #expect(throws: ExposedCallError.self) {
            try Quick().callSynchronousMethodWithoutSuspending(named: "syn", with: "two")
        }
        #expect(error?.kind == .badArgument)
        #expect(throws: GeometryError(reason: "no")) {
            try geometry.callSynchronousMethodWithoutSuspending(named: "fail", with: nil)
        }
    }

    @Test func completionMethodIsStartedWithoutSuspending() throws {
        let recorder = DeliveryRecorder()
        let quick = Quick()
        #expect(try quick.callAsynchronousMethodWithoutSuspending(named: "start", with: 1, completion: recorder.completion))
        #expect(recorder.deliveries == [.value(2, complete: true)])
        for name in ["startLater", "syn", "nope"] {
            #expect(
                try !quick.callAsynchronousMethodWithoutSuspending(named: name, with: 1, completion: recorder.completion),
                "\(name)")
        }
        #expect(
            try !Counter().callAsynchronousMethodWithoutSuspending(
                named: "current", with: nil, completion: recorder.completion))
        #expect(recorder.deliveries == [.value(2, complete: true)])
    }

    // MARK: - Refused calls

    @Test(arguments: [
        ("testSyn", JSONValue.integer(5)),
        ("double", JSONValue.string("5")),
        ("testSyn", JSONValue.null),
        ("translate", JSONValue.null),
        ("translate", ["x": 1] as JSONValue),
    ])
    func wrongJSONTypeIsBadArgument(method: String, argument: JSONValue) async {
        let error = await #expect(throws: ExposedCallError.self) {
            try await geometry.callSynchronousMethod(named: method, with: argument)
        }
        #expect(error?.kind == .badArgument)
        #expect(error?.message.contains("argument of \"\(method)\" must be") == true)
    }

    @Test func asynchronousMethodWithWrongArgumentIsBadArgument() async {
        let recorder = DeliveryRecorder()
        let error = await #expect(throws: ExposedCallError.self) {
            try await geometry.callAsynchronousMethod(named: "testAsyn", with: 5, completion: recorder.completion)
        }
        #expect(error?.kind == .badArgument)
        #expect(recorder.deliveries.isEmpty)
    }

    @Test func unknownNamesAreMethodNotFound() async {
        let recorder = DeliveryRecorder()
        for name in ["nope", "hidden", "secret", "testAsyn"] {
            let error = await #expect(throws: ExposedCallError.self) {
                try await geometry.callSynchronousMethod(named: name, with: nil)
            }
            #expect(error == .methodNotFound(name))
        }
        for name in ["nope", "testSyn"] {
            let error = await #expect(throws: ExposedCallError.self) {
                try await geometry.callAsynchronousMethod(named: name, with: nil, completion: recorder.completion)
            }
            #expect(error == .methodNotFound(name))
        }
        let emptyError = await #expect(throws: ExposedCallError.self) {
            try await Counter().callAsynchronousMethod(named: "increment", with: nil, completion: recorder.completion)
        }
        #expect(emptyError?.kind == .methodNotFound)
        #expect(recorder.deliveries.isEmpty)
    }

    // MARK: - Asynchronous calls

    @Test func completionWithFlagDeliversWhatTheMethodSays() async throws {
        let recorder = DeliveryRecorder()
        try await geometry.callAsynchronousMethod(named: "testAsyn", with: "hello", completion: recorder.completion)
        #expect(recorder.deliveries == [.value("hello [ asyn call]", complete: true)])
    }

    @Test func repeatedDeliveriesArriveInOrderUntilComplete() async throws {
        let recorder = DeliveryRecorder()
        try await geometry.callAsynchronousMethod(named: "countdown", with: 2, completion: recorder.completion)
        #expect(
            recorder.deliveries == [
                .value(2, complete: false), .value(1, complete: false), .value(0, complete: true),
            ])
    }

    @Test func singleParameterCompletionCompletesAtOnce() async throws {
        let recorder = DeliveryRecorder()
        try await Echo().callAsynchronousMethod(named: "asyn", with: ["x": 1, "y": 2], completion: recorder.completion)
        try await Constants.only.callAsynchronousMethod(named: "tick", with: nil, completion: recorder.completion)
        try await Constants.only.callAsynchronousMethod(named: "each", with: nil, completion: recorder.completion)
        let sortedDeliveries = recorder.deliveries.map { delivery in
            guard case .value(let value, let complete) = delivery else { return delivery }
            return .value(sorted(value), complete: complete)
        }
        #expect(
            sortedDeliveries == [
                .value(["x": 1, "y": 2], complete: true), .value(1, complete: true), .value(3, complete: true),
            ])
    }

    @Test func asyncThrowingAsynchronousMethodIsAwaitedAndNilDeliversEmptyString() async throws {
        let recorder = DeliveryRecorder()
        try await Echo().callAsynchronousMethod(named: "later", with: nil, completion: recorder.completion)
        #expect(recorder.deliveries == [.value("", complete: true)])
    }

    @Test func actorStreamsDeliveriesInOrder() async throws {
        let counter = Counter()
        let recorder = DeliveryRecorder()
        try await counter.callAsynchronousMethod(named: "stream", with: 3, completion: recorder.completion)
        _ = try await counter.callSynchronousMethod(named: "increment", with: nil)
        try await counter.callAsynchronousMethod(named: "current", with: nil, completion: recorder.completion)
        #expect(
            recorder.deliveries == [
                .value(1, complete: false), .value(2, complete: false), .value(3, complete: true),
                .value(1, complete: true),
            ])
    }
}

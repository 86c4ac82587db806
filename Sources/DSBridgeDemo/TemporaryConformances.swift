// SPDX-License-Identifier: MIT
// TEMPORARY: hand-written conformances until the @Exposed macro lands. Delete then.
import DSBridge

extension DemoAPI: ExposedInterface {
    public static var exposedMethods: [String: ExposedMethodKind] {
        ["testSyn": .synchronous, "testAsyn": .asynchronous, "testNoArgSyn": .synchronous,
         "testNoArgAsyn": .asynchronous, "callProgress": .asynchronous]
    }
    public func callSynchronousMethod(named name: String, with argument: JSONValue) async throws -> JSONValue {
        switch name {
        case "testSyn": return try ExposedResult.encode(testSyn(try ExposedArgument.decode(String.self, from: argument, method: name)))
        case "testNoArgSyn": return try ExposedResult.encode(testNoArgSyn())
        default: throw ExposedCallError.methodNotFound(name)
        }
    }
    public func callAsynchronousMethod(named name: String, with argument: JSONValue, completion: ExposedCompletion) async throws {
        switch name {
        case "testAsyn": testAsyn(try ExposedArgument.decode(String.self, from: argument, method: name)) { completion($0, complete: $1) }
        case "testNoArgAsyn": testNoArgAsyn { completion($0, complete: $1) }
        case "callProgress": callProgress { completion($0, complete: $1) }
        default: throw ExposedCallError.methodNotFound(name)
        }
    }
}

extension SwiftDemoAPI: ExposedInterface {
    public static var exposedMethods: [String: ExposedMethodKind] { ["testSyn": .synchronous, "testAsyn": .asynchronous] }
    public func callSynchronousMethod(named name: String, with argument: JSONValue) async throws -> JSONValue {
        switch name {
        case "testSyn": return try ExposedResult.encode(testSyn(try ExposedArgument.decode(String.self, from: argument, method: name)))
        default: throw ExposedCallError.methodNotFound(name)
        }
    }
    public func callAsynchronousMethod(named name: String, with argument: JSONValue, completion: ExposedCompletion) async throws {
        switch name {
        case "testAsyn": testAsyn(try ExposedArgument.decode(String.self, from: argument, method: name)) { completion($0, complete: $1) }
        default: throw ExposedCallError.methodNotFound(name)
        }
    }
}

extension EchoAPI: ExposedInterface {
    public static var exposedMethods: [String: ExposedMethodKind] { ["syn": .synchronous, "asyn": .asynchronous] }
    public func callSynchronousMethod(named name: String, with argument: JSONValue) async throws -> JSONValue {
        switch name {
        case "syn": return try ExposedResult.encode(syn(try ExposedArgument.decode(JSONValue.self, from: argument, method: name)))
        default: throw ExposedCallError.methodNotFound(name)
        }
    }
    public func callAsynchronousMethod(named name: String, with argument: JSONValue, completion: ExposedCompletion) async throws {
        switch name {
        case "asyn": asyn(try ExposedArgument.decode(JSONValue.self, from: argument, method: name)) { completion($0) }
        default: throw ExposedCallError.methodNotFound(name)
        }
    }
}

extension TestAPI: ExposedInterface {
    public static var exposedMethods: [String: ExposedMethodKind] { ["sleepSyn": .synchronous, "pushInvokes": .synchronous] }
    public func callSynchronousMethod(named name: String, with argument: JSONValue) async throws -> JSONValue {
        switch name {
        case "sleepSyn": return try await ExposedResult.encode(sleepSyn(try ExposedArgument.decode(Int.self, from: argument, method: name)))
        case "pushInvokes": return try ExposedResult.encode(pushInvokes(try ExposedArgument.decode(PushInvokesRequest.self, from: argument, method: name)))
        default: throw ExposedCallError.methodNotFound(name)
        }
    }
    public func callAsynchronousMethod(named name: String, with argument: JSONValue, completion: ExposedCompletion) async throws {
        throw ExposedCallError.methodNotFound(name)
    }
}

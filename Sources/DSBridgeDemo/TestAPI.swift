// SPDX-License-Identifier: MIT
import DSBridge

/// What `test.pushInvokes` asks for.
public struct PushInvokesRequest: Codable, Sendable {
    public var method: String
    public var count: Int
    public var args: [JSONValue]?
}

/// Outcomes of the native-initiated calls `test.pushInvokes` made.
public enum PushInvokeCounters {
    /// The process's counts.
    public static let shared = CallOutcomeCounters()
}

/// Helpers for tests and load tests (namespace `test`); not part of DSBridge's demo.
@Exposed
public struct TestAPI: Sendable {
    public init() {}

    /// Any JSON back, unchanged: `echo.syn` without `@nonblocking`, so it runs on a worker
    /// thread (load tests compare the two paths).
    func echo(_ value: JSONValue) -> JSONValue {
        value
    }

    /// Starts DSBridge's native→JavaScript demo on the calling session
    /// (``DemoSequence/start(on:logger:)``) and returns `""` at once. The demo never runs
    /// unless a page asks for it this way.
    @nonblocking
    func nativeDemo() -> String {
        if let session = BridgeSession.current {
            DemoSequence.start(on: session, logger: session.bridge.logger)
        }
        return ""
    }

    /// Returns `x` after appending it, as one line of JSON, to the file named by the
    /// environment variable `DSBRIDGED_EXEC_LOG` (when set): fault runs count how often
    /// each call really ran, on every node (a line twice is a call run twice).
    func record(_ value: JSONValue) -> JSONValue {
        ExecutionLog.shared?.append(value)
        return value
    }

    /// Replaces the calling session's tags (for group calls, `POST /admin/groups/TAG/call`)
    /// and returns them sorted: the Swift session API's ``BridgeSession/setTags(_:)``.
    func setTags(_ tags: [String]) -> [String] {
        guard let session = BridgeSession.current else { return [] }
        session.setTags(tags)
        return session.tags
    }

    /// Waits `milliseconds` (0...10000) without holding a thread, then returns it.
    func sleepSyn(_ milliseconds: Int) async throws -> Int {
        guard (0...10_000).contains(milliseconds) else {
            throw ExposedCallError.badArgument(method: "sleepSyn", expected: "an integer from 0 to 10000", detail: "got \(milliseconds)")
        }
        try await Task.sleep(for: .milliseconds(milliseconds))
        return milliseconds
    }

    /// Delivers `count` (0...10000) progress values `1...count` (`complete: false`) and then
    /// `count` as the final value (`complete: true`), all at once without any delay: an
    /// async call with repeated completions for load tests (`count + 1` `cb` messages).
    @nonblocking
    func progress(_ count: Int, handler: (Int, Bool) -> Void) throws {
        guard (0...10_000).contains(count) else {
            throw ExposedCallError.badArgument(method: "progress", expected: "a count from 0 to 10000", detail: "got \(count)")
        }
        if count > 0 {
            for value in 1...count { handler(value, false) }
        }
        handler(count, true)
    }

    /// Makes `count` (0...5000) native-initiated calls of `method` on the calling session.
    @nonblocking
    func pushInvokes(_ request: PushInvokesRequest) throws -> Int {
        guard (0...5_000).contains(request.count) else {
            throw ExposedCallError.badArgument(method: "pushInvokes", expected: "a count from 0 to 5000", detail: "got \(request.count)")
        }
        guard let session = BridgeSession.current else { return 0 }
        for _ in 0..<request.count {
            session.callJavaScript(request.method, args: request.args ?? []) { event in
                switch event {
                case .progress: break
                case .completed: PushInvokeCounters.shared.record(success: true)
                case .failed: PushInvokeCounters.shared.record(success: false)
                }
            }
        }
        return request.count
    }
}

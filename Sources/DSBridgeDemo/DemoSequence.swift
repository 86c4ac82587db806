// SPDX-License-Identifier: MIT
import DSBridge
import Logging
import Synchronization

/// DSBridge's own native→JavaScript demo (PROTOCOL.md 8), run on a session only when its
/// page asks with `test.nativeDemo`: the first calls are made at once (held until the page
/// is ready), the rest once it is. Each outcome is logged and reported to the page through
/// its `demoReport` function, so the page can show PASS or FAIL.
public enum DemoSequence {
    /// One call of the demo and what it must give.
    struct Step: Sendable {
        let label: String
        let method: String
        let args: [JSONValue]
        let expected: JSONValue
        var expectedProgress: [JSONValue] = []
    }

    /// Made at once (held until `_dsb.dsinit` when the page is not ready yet).
    static let beforeReady: [Step] = [
        Step(label: "addValue(3,4)", method: "addValue", args: [3, 4], expected: 7),
        Step(label: "append(\"I\",\"love\",\"you\")", method: "append", args: ["I", "love", "you"], expected: "I love you"),
    ]

    /// Made once the page is ready.
    static let afterReady: [Step] = [
        Step(label: "startTimer()", method: "startTimer", args: [], expected: 5, expectedProgress: [0, 1, 2, 3, 4]),
        Step(label: "syn.addValue(5,6)", method: "syn.addValue", args: [5, 6], expected: 11),
        Step(label: "syn.getInfo()", method: "syn.getInfo", args: [], expected: ["tag": "syn", "value": 8]),
        Step(label: "asyn.addValue(5,6)", method: "asyn.addValue", args: [5, 6], expected: 11),
        Step(label: "asyn.getInfo()", method: "asyn.getInfo", args: [], expected: ["tag": "asyn", "value": 8]),
        Step(label: "hasJavascriptMethod(\"addValue\")", method: "_hasJavascriptMethod", args: ["addValue", "all"], expected: true),
        Step(label: "hasJavascriptMethod(\"XX\")", method: "_hasJavascriptMethod", args: ["XX", "all"], expected: false),
        Step(label: "hasJavascriptMethod(\"asyn.addValue\")", method: "_hasJavascriptMethod", args: ["asyn.addValue", "all"], expected: true),
        Step(label: "hasJavascriptMethod(\"asyn.XX\")", method: "_hasJavascriptMethod", args: ["asyn.XX", "all"], expected: false),
    ]

    /// Runs the demo on `session` (what `test.nativeDemo` does): the first two calls now,
    /// the rest once the page is ready (at once if it already is).
    public static func start(on session: BridgeSession, logger: Logger) {
        run(beforeReady, on: session, logger: logger)
        session.whenReady { session in run(afterReady, on: session, logger: logger) }
    }

    static func run(_ steps: [Step], on session: BridgeSession, logger: Logger) {
        for step in steps {
            let progress = ProgressLog()
            session.callJavaScript(step.method, args: step.args, timeout: .seconds(15)) { event in
                switch event {
                case .progress(let value):
                    progress.append(value)
                case .completed(let value):
                    report(step, got: value, progress: progress.values, error: nil, on: session, logger: logger)
                case .failed(let error):
                    report(step, got: .null, progress: progress.values, error: error.description, on: session, logger: logger)
                }
            }
        }
    }

    static func report(_ step: Step, got: JSONValue, progress: [JSONValue], error: String?, on session: BridgeSession, logger: Logger) {
        let pass = error == nil && got == step.expected && progress == step.expectedProgress
        logger.info(
            "demo \(step.label): \(pass ? "PASS" : "FAIL") got \(got) progress \(progress)\(error.map { " error: \($0)" } ?? "")",
            metadata: ["bridge.session": "\(session.id)"])
        if step.method == "demoReport" { return }
        var entry: JSONObject = [
            "label": .string(step.label), "expected": step.expected, "got": got, "pass": .bool(pass),
            "progress": .array(progress), "expectedProgress": .array(step.expectedProgress),
        ]
        if let error { entry["error"] = .string(error) }
        session.callJavaScript("demoReport", args: [.object(entry)], timeout: .seconds(15)) { _ in }
    }
}

/// Progress values of one call, appended from any thread.
final class ProgressLog: Sendable {
    private let storage = Mutex<[JSONValue]>([])
    func append(_ value: JSONValue) { storage.withLock { $0.append(value) } }
    var values: [JSONValue] { storage.withLock { $0 } }
}

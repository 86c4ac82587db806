// SPDX-License-Identifier: MIT
import DSBridge
import Foundation

/// DSBridge's demo rows from `web/demo-rows.json`, the one copy: the Python tests
/// (scripts/dsbtest/demo.py) and the demo page (web/demo.js, as /demo-rows.json) read it too.
enum DemoRowsFixture {
    /// The file, found from this source file's place in the repository.
    static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // DSBridgeServerTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the repository
        .appendingPathComponent("web/demo-rows.json")

    /// The whole file, or nil when it cannot be read or parsed (the fixture test then fails).
    static let value: JSONValue? = {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONParser.parse(data)
    }()

    /// JS -> native rows: `method`, `arg` (absent: no argument), `result`, `async`.
    static var toNative: [JSONValue] { value?["toNative"]?.arrayValue ?? [] }

    /// Native -> JS rows of the page's demo handlers (and `_hasJavascriptMethod` asking for
    /// them): `method`, `args`, `progress`, `result`.
    static var toPage: [JSONValue] { value?["toPage"]?.arrayValue ?? [] }

    /// The demo page's handler names (what `_hasJavascriptMethod` finds on it).
    static var handlerNames: Set<String> {
        Set(toPage.compactMap { $0["method"]?.stringValue }.filter { $0 != "_hasJavascriptMethod" })
    }
}

// SPDX-License-Identifier: MIT
import DSBridge

/// A late message as it sits in a session's late list (docs/CLUSTER.md, late messages):
/// `{"k":KIND,"t":TAIL,"r":CALL_ID,"v":RUN_VALUE}` with `r`/`v` only when the message
/// changes a run-table entry (`v` null: the call finished). Late messages are rare (a drain,
/// a page that moved), so plain JSON is fine here.
enum LateItem {
    static func encode(_ late: LateMessage, runner: String) -> [UInt8] {
        var o: JSONObject = [
            "k": .string(late.message.kind.rawValue),
            "t": .string(String(decoding: late.message.tail, as: UTF8.self)),
        ]
        if let run = late.run {
            o["r"] = .integer(run.id)
            o["v"] = run.entry.map { .string(JournalArguments.runValue($0, runner: run.runner ?? runner)) } ?? .null
        }
        return JSONWriter.bytes(.object(o))
    }

    static func decode(_ bytes: [UInt8]) -> LateMessage? {
        guard case .object(let o)? = try? JSONParser.parse(bytes),
            let kind = o["k"]?.stringValue.flatMap(SequencedMessage.Kind.init(rawValue:)),
            let tail = o["t"]?.stringValue
        else { return nil }
        var run: RunChange?
        if let id = o["r"]?.integerValue {
            if let value = o["v"]?.stringValue {
                guard let parsed = JournalArguments.parseRunValue(value) else { return nil }
                run = RunChange(id: id, entry: parsed.entry, runner: parsed.node)
            } else {
                run = RunChange(id: id, entry: nil)
            }
        }
        return LateMessage(message: SequencedMessage(kind: kind, tail: Array(tail.utf8)), run: run)
    }
}

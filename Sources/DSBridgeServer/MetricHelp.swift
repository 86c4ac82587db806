// SPDX-License-Identifier: MIT

/// `# HELP` text for every metric family of `/metrics`. The metrics are made through
/// swift-metrics, whose Prometheus backend has no help text for them; ``annotate(_:)`` puts
/// each family's line before its `# TYPE` line as the exposition is served.
public enum MetricHelp {
    /// Help text by metric family (``MetricFamilies/all``; a family whose name is missing
    /// here gets none).
    public static let texts: [String: String] = Dictionary(uniqueKeysWithValues: MetricFamilies.all.map { ($0.name, $0.help) })

    /// `text` (the Prometheus exposition) with a `# HELP` line before each `# TYPE` line
    /// that has none and whose family is in ``texts``.
    public static func annotate(_ text: [UInt8]) -> [UInt8] {
        var typed = Set<String>()
        return annotate(text, typed: &typed)
    }

    /// ``annotate(_:)``, also collecting the names on the `# TYPE` lines into `typed`.
    static func annotate(_ text: [UInt8], typed: inout Set<String>) -> [UInt8] {
        let typePrefix = Array("# TYPE ".utf8)
        let helpPrefix = Array("# HELP ".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.count + 4096)
        var previousWasHelp = false
        var start = 0
        while start < text.count {
            var end = start
            while end < text.count, text[end] != UInt8(ascii: "\n") { end += 1 }
            let line = text[start..<end]
            if line.starts(with: typePrefix) {
                let rest = line.dropFirst(typePrefix.count)
                let name = String(decoding: rest.prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)
                typed.insert(name)
                if !previousWasHelp, let help = texts[name] {
                    out += helpPrefix
                    out += Array(name.utf8)
                    out.append(UInt8(ascii: " "))
                    out += Array(help.utf8)
                    out.append(UInt8(ascii: "\n"))
                }
            }
            previousWasHelp = line.starts(with: helpPrefix)
            out += line
            if end < text.count { out.append(UInt8(ascii: "\n")) }
            start = end + 1
        }
        return out
    }
}

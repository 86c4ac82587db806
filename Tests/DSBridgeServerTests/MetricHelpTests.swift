// SPDX-License-Identifier: MIT
import DSBridgeServer
import Foundation
import Testing

/// `# HELP` lines of `/metrics` (issue 17, point 5).
@Suite("Metric help texts")
struct MetricHelpTests {
    @Test("a HELP line goes before each TYPE line of a known family, once; others are left alone")
    func annotates() {
        let text = """
            # TYPE dsbridge_calls_total counter
            dsbridge_calls_total{method="a",outcome="ok"} 3
            # HELP dsbridge_sessions already said
            # TYPE dsbridge_sessions gauge
            dsbridge_sessions{state="ready"} 1
            # TYPE other_metric gauge
            other_metric 2
            """
        let out = String(decoding: MetricHelp.annotate(Array(text.utf8)), as: UTF8.self)
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "# HELP dsbridge_calls_total " + (MetricHelp.texts["dsbridge_calls_total"] ?? ""))
        #expect(lines.filter { $0.hasPrefix("# HELP dsbridge_sessions ") } == ["# HELP dsbridge_sessions already said"])
        #expect(!out.contains("# HELP other_metric"))
        #expect(lines.last == "other_metric 2", "the text's end is kept as it was")
        #expect(MetricHelp.annotate(MetricHelp.annotate(Array(text.utf8))) == MetricHelp.annotate(Array(text.utf8)))
    }

    @Test("every family without a TYPE line yet gets its HELP and TYPE lines; cluster-only ones only in cluster mode")
    func completesFamilies() {
        let text = "# HELP dsbridge_calls_total x\n# TYPE dsbridge_calls_total counter\ndsbridge_calls_total{method=\"a\",outcome=\"ok\"} 1\n"
        let alone = String(decoding: MetricFamilies.completing(Array(text.utf8), clusterMode: false), as: UTF8.self)
        #expect(alone.hasPrefix(text), "what was there stays first, unchanged")
        #expect(alone.components(separatedBy: "# TYPE dsbridge_calls_total ").count == 2, "a family already there is not added again")
        #expect(alone.contains("# TYPE dsbridge_sessions_closed_total counter\n"))
        #expect(alone.contains("# HELP dsbridge_event_loop_lag_seconds "))
        #expect(alone.contains("# TYPE dsbridge_event_loop_lag_seconds histogram\n"))
        #expect(!alone.contains("dsbridge_cluster_"))
        let cluster = String(decoding: MetricFamilies.completing(Array(text.utf8), clusterMode: true), as: UTF8.self)
        #expect(cluster.contains("# TYPE dsbridge_cluster_redis_up gauge\n"))
        let all = MetricFamilies.all.map(\.name)
        #expect(Set(all).count == all.count, "each family once")
        for family in MetricFamilies.all {
            #expect(cluster.components(separatedBy: "# TYPE \(family.name) ").count == 2, "\(family.name) once")
        }
        let unterminated = MetricFamilies.completing(Array("x 1".utf8), clusterMode: false)
        #expect(String(decoding: unterminated, as: UTF8.self).hasPrefix("x 1\n# HELP "))
    }

    @Test("the Grafana dashboard in deploy/ is JSON and asks only for metric families dsbridged has")
    func dashboard() throws {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/grafana-dsbridged.json")
        let data = try Data(contentsOf: url)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(object["panels"] as? [[String: Any]])
        #expect(panels.count >= 10)
        let known = Set(MetricHelp.texts.keys)
        let pattern = try Regex(#"dsbridge_[a-z_]+"#)
        var asked = Set<String>()
        for panel in panels {
            for target in panel["targets"] as? [[String: Any]] ?? [] {
                let expr = try #require(target["expr"] as? String)
                for match in expr.matches(of: pattern) {
                    var name = String(expr[match.range])
                    for suffix in ["_bucket", "_count", "_sum"] where name.hasSuffix(suffix) && !known.contains(name) {
                        name = String(name.dropLast(suffix.count))
                    }
                    asked.insert(name)
                }
            }
        }
        #expect(asked.subtracting(known).isEmpty, "unknown families: \(asked.subtracting(known).sorted())")
        for family in [
            "dsbridge_sessions", "dsbridge_calls_total", "dsbridge_call_duration_seconds", "dsbridge_queued_messages",
            "dsbridge_replay_bytes", "dsbridge_cluster_redis_up",
        ] {
            #expect(asked.contains(family), "the dashboard shows \(family)")
        }
    }

    @Test("every metric family the sources make has a help text")
    func everyFamilyHasHelp() throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var names = Set<String>()
        let pattern = try Regex(#""(dsbridge_[a-z_]+)""#)
        for case let url as URL in files where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            for match in text.matches(of: pattern) {
                if let name = match.output[1].substring { names.insert(String(name)) }
            }
        }
        #expect(names.count > 15, "found \(names.count) families")
        let missing = names.subtracting(MetricHelp.texts.keys)
        #expect(missing.isEmpty, "no help text for \(missing.sorted())")
    }
}

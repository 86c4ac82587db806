// SPDX-License-Identifier: MIT
import Foundation

/// The line printed on stderr about once a second while a run goes on: phase, rate since
/// the last line, sessions ready, errors, and the server's CPU and RSS (runner thread).
struct ProgressLine {
    let options: BenchOptions
    let control: RunControl
    let probe: ServerProbe?
    private let start = monotonicNanos()
    private var lastAt = monotonicNanos()
    private var lastOps = 0
    private var lastServer: ServerProbe.Sample?

    init(options: BenchOptions, control: RunControl, probe: ServerProbe?) {
        self.options = options
        self.control = control
        self.probe = probe
        lastServer = probe?.sample()
    }

    /// Starts the rate over (at the start of the measurement).
    mutating func resetRate() {
        lastAt = monotonicNanos()
        lastOps = control.sum { $0.operations.load(ordering: .relaxed) }
    }

    /// Prints a line when a second has passed since the last one.
    mutating func maybePrint(label: String) {
        let now = monotonicNanos()
        guard now - lastAt >= 1_000_000_000 else { return }
        let ops = control.sum { $0.operations.load(ordering: .relaxed) }
        let seconds = Double(now - lastAt) / 1e9
        let rate = Double(ops - lastOps) / seconds
        lastAt = now
        lastOps = ops
        guard !options.quiet else { return }
        let padded = label.count < 9 ? label + String(repeating: " ", count: 9 - label.count) : label
        var line =
            "[" + String(format: "%6.1fs", Double(now - start) / 1e9) + " " + padded + "] "
            + String(format: "%10.0f", rate) + " " + options.scenario.unit
            + " | ready \(control.sum { $0.ready.load(ordering: .relaxed) })"
            + " | errors \(control.sum { $0.errors.load(ordering: .relaxed) })"
        if let probe, let sample = probe.sample() {
            if let last = lastServer {
                let cpu = (sample.cpuSeconds - last.cpuSeconds) / (Double(sample.at - last.at) / 1e9) * 100
                line += String(format: " | server cpu %3.0f%% rss %.1f MiB", cpu, Double(sample.rssBytes) / 1_048_576)
            }
            lastServer = sample
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

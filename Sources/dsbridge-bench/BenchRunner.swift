// SPDX-License-Identifier: MIT
import Foundation

/// Runs one scenario: starts the worker threads, moves them through the phases (open,
/// warm up, measure, check, stop), samples the server, and builds the report. Runs on the
/// main thread; workers are reached only through ``RunControl``.
struct BenchRunner {
    let options: BenchOptions

    func run() throws(BenchError) -> BenchReport {
        let probe = options.serverPID.map { ServerProbe(pid: $0) }
        let baseline = probe?.sample()
        let control = RunControl(workers: options.threads)
        for index in 0..<options.threads {
            let share = options.sessions / options.threads + (index < options.sessions % options.threads ? 1 : 0)
            let opts = options
            let thread = Thread {
                let worker = ClientWorker(index: index, options: opts, control: control, share: share)
                worker.run()
            }
            thread.name = "bench-\(index)"
            thread.start()
        }
        var progress = ProgressLine(options: options, control: control, probe: probe)
        var notes: [String] = []

        // Open every session (storms: `connect` cycles from the start, nothing waits).
        let openStart = monotonicNanos()
        if options.scenario != .connect {
            let deadline = openStart + UInt64(options.openTimeout * 1e9)
            while control.sum({ $0.ready.load(ordering: .relaxed) }) < options.sessions, monotonicNanos() < deadline, !control.allFinished {
                pause(0.05, control: control, progress: &progress, label: "opening")
            }
        }
        let ready = control.sum { $0.ready.load(ordering: .relaxed) }
        let openSeconds = Double(monotonicNanos() - openStart) / 1e9
        if options.scenario != .connect, ready < options.sessions {
            if options.scenario == .idle, ready > 0 {
                notes.append("only \(ready) of \(options.sessions) sessions opened within \(Int(options.openTimeout)) s")
            } else {
                stop(control, progress: &progress)
                throw .sessionsNotReady(ready: ready, wanted: options.sessions, seconds: options.openTimeout)
            }
        }
        if options.scenario == .idle { pause(1.0, control: control, progress: &progress, label: "settling") }

        control.enter(.warmup)
        pause(options.warmup, control: control, progress: &progress, label: "warm-up")

        let before = probe?.sample()
        let ownBefore = ServerProbe.ownCPUSeconds()
        let t0 = monotonicNanos()
        control.enter(.measure)
        progress.resetRate()
        pause(options.duration, control: control, progress: &progress, label: options.scenario == .idle ? "holding" : "measuring")
        let after = probe?.sample()
        let ownAfter = ServerProbe.ownCPUSeconds()
        let t1 = monotonicNanos()

        if options.scenario == .idle {
            control.enter(.check)
            let deadline = monotonicNanos() + 30_000_000_000 + UInt64(ready) * 5_000_000  // 30 s + 5 ms per session
            while control.sum({ $0.checked.load(ordering: .relaxed) }) < ready, monotonicNanos() < deadline {
                pause(0.05, control: control, progress: &progress, label: "checking")
            }
        } else {
            control.enter(.check)
        }
        stop(control, progress: &progress)

        let stats = control.mergedStats()
        let measured = Double(t1 - t0) / 1e9
        return makeReport(
            stats: stats, measured: measured, ready: ready, openSeconds: openSeconds,
            baseline: baseline, before: before, after: after,
            clientCPU: ownAfter - ownBefore, notes: notes)
    }

    /// Stops every worker and waits for their stats (at most 15 s plus 1 s per 1,000 sessions).
    private func stop(_ control: RunControl, progress: inout ProgressLine) {
        control.enter(.stop)
        let deadline = monotonicNanos() + 15_000_000_000 + UInt64(options.sessions) * 1_000_000
        while !control.allFinished, monotonicNanos() < deadline {
            pause(0.05, control: control, progress: &progress, label: "stopping")
        }
    }

    /// Sleeps `seconds`, waking the workers every 200 ms and printing progress each second.
    private func pause(_ seconds: Double, control: RunControl, progress: inout ProgressLine, label: String) {
        let end = monotonicNanos() + UInt64(max(0, seconds) * 1e9)
        while true {
            let now = monotonicNanos()
            if now >= end { break }
            let step = min(end - now, 200_000_000)
            usleep(UInt32(step / 1000))
            control.wakeAll()
            progress.maybePrint(label: label)
        }
    }

    private func makeReport(
        stats: WorkerStats, measured: Double, ready: Int, openSeconds: Double,
        baseline: ServerProbe.Sample?, before: ServerProbe.Sample?, after: ServerProbe.Sample?,
        clientCPU: Double, notes: [String]
    ) -> BenchReport {
        let o = options
        var latency: BenchReport.Latency?
        if stats.latency.totalCount > 0 {
            let h = stats.latency
            latency = BenchReport.Latency(
                samples: h.totalCount,
                p50: Double(h.valueAtPercentile(50)) / 1000, p90: Double(h.valueAtPercentile(90)) / 1000,
                p99: Double(h.valueAtPercentile(99)) / 1000, p999: Double(h.valueAtPercentile(99.9)) / 1000,
                max: Double(h.max) / 1000, mean: h.mean / 1000)
        }
        let completed = o.scenario == .idle ? ready : stats.completed
        let throughput = o.scenario == .idle ? (openSeconds > 0 ? Double(ready) / openSeconds : 0) : Double(stats.completed) / measured
        var server: BenchReport.Server?
        if let pid = o.serverPID, let before, let after {
            let cpu = after.cpuSeconds - before.cpuSeconds
            let seconds = Double(after.at - before.at) / 1e9
            server = BenchReport.Server(
                pid: pid, cpuPercent: seconds > 0 ? cpu / seconds * 100 : 0,
                cpuMicrosPerOperation: stats.completed > 0 ? cpu * 1e6 / Double(stats.completed) : nil,
                rssBytes: after.rssBytes)
        }
        var idle: BenchReport.Idle?
        if o.scenario == .idle {
            var perSession: Double?
            if let baseline, let after, ready > 0 { perSession = Double(after.rssBytes - baseline.rssBytes) / Double(ready) }
            idle = BenchReport.Idle(
                sessions: ready, answered: stats.checked, rssBeforeBytes: baseline?.rssBytes,
                rssHeldBytes: after?.rssBytes, rssPerSessionBytes: perSession, openSeconds: openSeconds)
        }
        return BenchReport(
            scenario: o.scenario, target: "\(o.host):\(o.port)", sessions: o.sessions, inFlight: o.inFlight,
            payloadBytes: o.payloadBytes, threads: o.threads, warmupSeconds: o.warmup, measuredSeconds: measured,
            throughput: throughput, unit: o.scenario.unit, completed: completed,
            callsPerSecond: Double(stats.calls) / measured, messagesPerSecond: Double(stats.messages) / measured,
            latencyMeasures: o.scenario.latencyMeaning, latency: latency, errors: stats.errors,
            closeCodes: Dictionary(uniqueKeysWithValues: stats.closeCodes.map { (String($0.key), $0.value) }),
            server: server, clientCPUPercent: measured > 0 ? clientCPU / measured * 100 : 0, idle: idle, notes: notes)
    }
}

// SPDX-License-Identifier: MIT
import Glibc
import Testing

@testable import DSBridgeServer

/// When the page listener stops and starts accepting, on a clock moved by hand.
@Suite("AcceptGate: accepting pauses when descriptors run short")
struct AcceptGateTests {
    @Test("descriptors below the threshold keep accepting; one at the threshold pauses")
    func pausesAtThreshold() {
        var gate = AcceptGate(threshold: 400)
        #expect(gate.accepted(fd: 399, now: 0) == .proceed)
        #expect(!gate.paused)
        #expect(gate.accepted(fd: 400, now: 10) == .pause)
        #expect(gate.paused)
        #expect(gate.retryAt == 10 + AcceptGate.retryMs)
        #expect(gate.pauses == 1)
    }

    @Test("EMFILE, ENFILE and ENOMEM pause; EAGAIN ends the batch; an aborted connection is skipped")
    func acceptErrors() {
        for error in [EMFILE, ENFILE, ENOBUFS, ENOMEM] {
            var gate = AcceptGate(threshold: 400)
            #expect(gate.acceptFailed(errno: error, now: 0) == .pause)
        }
        var gate = AcceptGate(threshold: 400)
        #expect(gate.acceptFailed(errno: EAGAIN, now: 0) == .drained)
        #expect(gate.acceptFailed(errno: ECONNABORTED, now: 0) == .proceed)
        #expect(!gate.paused)
    }

    @Test("a pause ends only when a probe finds a free descriptor below the threshold")
    func resumesOnlyWithRoom() {
        var gate = AcceptGate(threshold: 400)
        #expect(gate.connectionClosed() == .proceed)
        _ = gate.acceptFailed(errno: EMFILE, now: 1_000)
        #expect(gate.connectionClosed() == .probe)
        #expect(gate.retryDue(now: 1_099) == .proceed)
        #expect(gate.retryDue(now: 1_100) == .probe)
        // The closed descriptor was above the threshold: still no room.
        #expect(gate.probed(lowestFree: 401, now: 1_100) == .pause)
        #expect(gate.paused)
        #expect(gate.retryAt == 1_200)
        #expect(gate.probed(lowestFree: Int32.max, now: 1_150) == .pause)
        #expect(gate.probed(lowestFree: 399, now: 1_160) == .resume)
        #expect(!gate.paused)
        #expect(gate.retryAt == nil)
        #expect(gate.pauses == 1)
    }

    @Test("the admin listener's gate never pauses for the reserve, only while accept fails, and resumes after retryMs")
    func adminGate() {
        var gate = AcceptGate(threshold: .max)
        #expect(gate.accepted(fd: Int32.max - 1, now: 0) == .proceed)
        #expect(gate.acceptFailed(errno: EMFILE, now: 10) == .pause)
        #expect(gate.retryDue(now: 10 + AcceptGate.retryMs - 1) == .proceed)
        #expect(gate.retryDue(now: 10 + AcceptGate.retryMs) == .probe)
        // (`lowestFreeDescriptor()` answers Int32.max when none is free: still below the threshold.)
        #expect(gate.probed(lowestFree: Int32.max, now: 10 + AcceptGate.retryMs) == .resume)
        #expect(!gate.paused)
    }

    @Test("log lines come at most once a second and carry the pauses in between")
    func rateLimitedLog() {
        var gate = AcceptGate(threshold: 384)
        _ = gate.accepted(fd: 384, now: 0)
        let first = gate.logLine(now: 0, openDescriptorsAtLeast: 385, limit: 512)
        #expect(first?.contains("paused 1 time(s)") == true)
        #expect(first?.contains("385 of the limit 512 (128 kept") == true)
        for t in stride(from: UInt64(10), to: 1_000, by: 10) {
            _ = gate.probed(lowestFree: 300, now: t)
            _ = gate.accepted(fd: 384, now: t)
            #expect(gate.logLine(now: t, openDescriptorsAtLeast: 385, limit: 512) == nil)
        }
        _ = gate.probed(lowestFree: 300, now: 1_000)
        _ = gate.accepted(fd: 384, now: 1_000)
        let second = gate.logLine(now: 1_000, openDescriptorsAtLeast: 385, limit: 512)
        #expect(second?.contains("paused 100 time(s)") == true)
        #expect(second?.contains("101 pauses since start") == true)
    }
}

/// The soft descriptor limit planned at start.
@Suite("DescriptorLimit: the soft limit fits maxSessions")
struct DescriptorLimitTests {
    @Test("a shell's 1,024 is raised to fit maxSessions plus the reserve, up to the hard limit")
    func raises() {
        let fits = DescriptorLimit(currentSoft: 1_024, hard: 1_048_576, maxSessions: 100_000)
        #expect(fits.soft == 100_000 + DescriptorLimit.reserve + DescriptorLimit.httpAllowance)
        #expect(fits.warning(maxSessions: 100_000) == nil)
        let capped = DescriptorLimit(currentSoft: 1_024, hard: 20_000, maxSessions: 100_000)
        #expect(capped.soft == 20_000)
        #expect(capped.sessionCapacity == 20_000 - DescriptorLimit.reserve)
        #expect(capped.warning(maxSessions: 100_000)?.hasPrefix("warning: ") == true)
    }

    @Test("a soft limit far above what maxSessions needs is lowered (lws walks its table per close)")
    func lowers() {
        let plan = DescriptorLimit(currentSoft: 262_144, hard: 262_144, maxSessions: 10_000)
        #expect(plan.soft == 10_000 + DescriptorLimit.reserve + DescriptorLimit.httpAllowance)
        #expect(plan.acceptThreshold == plan.soft - DescriptorLimit.reserve)
    }
}

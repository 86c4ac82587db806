// SPDX-License-Identifier: MIT

/// What the page does in each scenario: when to call, what counts as done.
extension PageClient {
    var scenario: Scenario { worker.options.scenario }

    /// `welcome` arrived (a new session, or a resumed one).
    func welcomed(resumed: Bool, now: UInt64) {
        markReady()
        if isResume, !resumed { worker.recordError("resume.notResumed") }
        switch scenario {
        case .idle:
            worker.stats.sample(now &- openedAt)  // open latency, whatever the phase
        case .connect:
            worker.recordOperation(sentAt: openedAt, now: now)
            closing = true
            outbox.append(.call(.closePage, madeAt: now))
        case .resume:
            if isResume { worker.recordOperation(sentAt: openedAt, now: now) }
            if worker.loadRuns { cycle() }
        case .invoke:
            outbox.append(.call(.dsinit, madeAt: now))
            fill(now: now)
        case .paced:
            worker.startPacing(self)
        default:
            fill(now: now)
        }
        if worker.phase == .stop { stop(now: now) }
    }

    /// A `ret` with code 0 for a call (for `progress` calls, the `ret ""` before the `cb`s).
    func answered(_ entry: PendingCalls.Entry, now: UInt64) {
        switch entry.kind {
        case .echo:
            if worker.counting { worker.stats.calls += 1 }
            worker.recordOperation(sentAt: entry.sentAt, now: now)
            inFlight -= 1
            fill(now: now)
        case .answer:
            if worker.counting { worker.stats.calls += 1 }
            worker.recordOperation(sentAt: entry.sentAt, now: now)
            inFlight -= 1
            fill(now: now)
        case .check:
            worker.checked += 1
            worker.stats.checked += 1
            worker.stats.sample(now &- entry.sentAt)
        case .progress, .trigger, .dsinit, .closePage, .otherAnswer:
            break
        }
    }

    /// A `ret` with code -1 (already counted as an error).
    func failed(_ entry: PendingCalls.Entry, now: UInt64) {
        switch entry.kind {
        case .echo, .progress, .answer:
            inFlight -= 1
            fill(now: now)
        case .trigger:
            if let i = triggers.firstIndex(where: { $0.id == entry.id }) {
                inFlight -= triggers[i].remaining
                triggers.remove(at: i)
            }
            fill(now: now)
        case .check, .dsinit, .closePage, .otherAnswer:
            break
        }
    }

    /// A `cb` of a `progress` call.
    func progressDelivered(_ entry: PendingCalls.Entry, final: Bool, now: UInt64) {
        worker.recordOperation(sentAt: final ? entry.sentAt : nil, now: now)
        guard final else { return }
        if worker.counting { worker.stats.calls += 1 }
        inFlight -= 1
        fill(now: now)
    }

    /// Keeps the configured load in flight while the load runs.
    func fill(now: UInt64) {
        guard ready, !closing, worker.loadRuns else { return }
        let o = worker.options
        switch scenario {
        case .syn, .async:
            while inFlight < o.inFlight {
                inFlight += 1
                outbox.append(.call(scenario == .syn ? .echo : .progress, madeAt: now))
            }
        case .invoke:
            while inFlight + o.invokeBatch <= o.inFlight * o.invokeBatch {
                inFlight += o.invokeBatch
                outbox.append(.call(.trigger, madeAt: now))
            }
        default:
            return
        }
        wantWrite()
    }

    /// `paced`: the session is open and keeps its place in the schedule.
    var pacing: Bool { ready && !closing && closeRequested == nil }

    /// `paced`: this session's call is due (sent while the load runs; at most
    /// ``pacedInFlightCap`` unanswered, so a stalled server is not buried).
    func callPaced(now: UInt64) {
        guard worker.loadRuns, inFlight < Self.pacedInFlightCap else { return }
        inFlight += 1
        outbox.append(.call(.echo, madeAt: now))
        wantWrite()
    }

    /// The run moved to `phase`.
    func followPhase(_ phase: RunPhase) {
        let now = monotonicNanos()
        switch phase {
        case .warmup, .measure:
            if scenario == .resume, ready { cycle() } else { fill(now: now) }
        case .check:
            if ready, scenario == .idle, !closing {
                outbox.append(.call(.check, madeAt: now))
                wantWrite()
            }
        case .stop:
            stop(now: now)
        case .opening:
            break
        }
    }

    /// Ends the session (`_dsb.closePage`, the server closes 1000) or drops the socket.
    func stop(now: UInt64) {
        if ready, !closing, closeRequested == nil {
            closing = true
            outbox.append(.call(.closePage, madeAt: now))
            wantWrite()
        } else if !ready, !established {
            requestClose()
        }
        // Established but not welcomed yet: `welcomed` ends the session when it arrives.
    }

    /// `resume`: drop the socket now; ``ended(error:)`` reconnects with the token.
    func cycle() {
        guard !closing, closeRequested == nil else { return }
        requestClose()
    }

    /// `resume`: a socket the bench dropped is reopened with the session's token.
    func reconnectIfCycling(error: String?) {
        guard scenario == .resume, error == nil, closeRequested != nil, worker.phase < .stop, let token else { return }
        worker.resumeQueue.append(ResumeTicket(token: token, ack: highestSeq, lastCallID: nextCallID - 1))
    }
}

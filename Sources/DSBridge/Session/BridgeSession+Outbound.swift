// SPDX-License-Identifier: MIT

extension BridgeSession {
    /// Queues a sequenced message. A message too large for the replay bound is replaced
    /// by an error (`ret`/`cb`); overflowing the bound ends the session with 4008.
    /// `run`: what the message does to its call's run-table entry (journaled sessions).
    @discardableResult
    func send(_ message: ServerMessage, run: RunChange? = nil, site: CallSite = .worker) -> OutboundLog.AppendError? {
        let appended = transition { $0.append(message, run: run) }
        carryOut(appended, site: site)
        return appended.error
    }

    /// Wakes the socket a message was queued for; ends the session on an overflow.
    func carryOut(_ appended: SessionState<BridgeConnection>.Appended, site: CallSite) {
        if case .boundExceeded(let bound)? = appended.error {
            bridge.metrics.overflow(bound: bound.contains("replayMaxMessages") ? .replayMaxMessages : .replayMaxBytes)
            logger.warning("closing session 4008: \(bound)", metadata: ["bridge.session": "\(id)"])
            finish(reason: bound, closeCode: 4008, dropQueued: false, site: site)
        }
        appended.wake?.waker.wake()
        if appended.registerJournal { bridge.journal?.sessionNeedsWrite(self) }
        if !appended.late.isEmpty { bridge.journal?.passLate(appended.late, of: self) }
    }
}

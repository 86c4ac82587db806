// SPDX-License-Identifier: MIT

/// ``SessionState``'s outbound transitions: a message numbered into the log (the replay),
/// one too large replaced by an error, and in cluster mode recorded for the journal before
/// it may go out, or passed to the new owner once the session moved.
extension SessionState {
    /// The result of queueing a message: the socket to wake, and what went wrong.
    struct Appended: Sendable {
        var wake: Connection?
        var error: OutboundLog.AppendError?
        /// The session went dirty: tell the journal.
        var registerJournal = false
        /// The session moved: pass these to its owner instead (docs/CLUSTER.md, late messages).
        var late: [LateMessage] = []
    }

    /// Queues a sequenced message. One too large for the replay bound is replaced by an
    /// error (`ret`/`cb`) and reported as `.messageTooLarge`; overflowing a bound reports
    /// `.boundExceeded` (the shell ends the session with 4008).
    /// `run`: what the message does to its call's run-table entry (journaled sessions).
    mutating func append(_ message: ServerMessage, run: RunChange? = nil) -> Appended {
        if ended { return Appended() }
        if hasMoved {
            // Passed to the new owner (``callsRunningHere`` still counts the call here).
            return Appended(late: journal?.lateAfterMove(message.encoded(seq: 0), run: run).map { [$0] } ?? [])
        }
        do throws(OutboundLog.AppendError) {
            _ = try log.append(message)
            return journaled(Appended(wake: connection), run: run)
        } catch .messageTooLarge(let bytes) {
            let tooLarge = CallFailure(.failed, "result too large (\(bytes) bytes)")
            let replacement: ServerMessage?
            var replacementRun = run
            switch message {
            case .ret(let id, _):
                replacement = .ret(id: id, result: .failure(tooLarge))
                replacementRun = RunChange(id: id, entry: nil)  // a failed ret is final
            case .cb(let stub, _): replacement = .cb(stub: stub, payload: .failure(tooLarge))
            default: replacement = nil
            }
            var appended = Appended(wake: connection, error: .messageTooLarge(bytes: bytes))
            if let replacement, (try? log.append(replacement)) != nil { appended = journaled(appended, run: replacementRun) }
            return appended
        } catch {
            return Appended(error: error)
        }
    }

    /// Records the message just appended in the journal (cluster mode).
    mutating func journaled(_ appended: Appended, run: RunChange?) -> Appended {
        guard let recorded = journal?.recordAppended(in: log, run: run) else { return appended }
        var a = appended
        a.registerJournal = recorded.register
        // Held back until the journal has it: the write's report wakes the socket then
        // (``journalWritten(_:_:)``); waking it now would find nothing to send.
        if !recorded.sendable { a.wake = nil }
        return a
    }

    /// Queues an invoke encoded off the lock (numbering it only copies bytes).
    mutating func append(_ invoke: EncodedInvoke, callbackId: Int64) -> Appended {
        if ended { return Appended() }
        if hasMoved {
            return Appended(late: journal?.lateAfterMove(invoke.bytes(seq: 0, callbackId: callbackId), run: nil).map { [$0] } ?? [])
        }
        do throws(OutboundLog.AppendError) {
            _ = try log.append { invoke.bytes(seq: $0, callbackId: callbackId) }
            return journaled(Appended(wake: connection), run: nil)
        } catch .messageTooLarge(let bytes) {
            return Appended(wake: connection, error: .messageTooLarge(bytes: bytes))
        } catch {
            return Appended(error: error)
        }
    }
}

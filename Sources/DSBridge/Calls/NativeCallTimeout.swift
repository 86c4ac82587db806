// SPDX-License-Identifier: MIT
import Synchronization

/// The timeout of one native-initiated call, called off when the call ends first: without
/// that, every answered call kept its timeout's closure until the deadline, so memory grew
/// with the call rate times the timeout (hundreds of MB at 40,000 invokes a second with the
/// default 30 s).
///
/// The call may end before its timeout is scheduled (the page answers at once): the end is
/// remembered and the timeout called off as soon as it is handed over.
final class NativeCallTimeout: Sendable {
    private struct State {
        var work: ScheduledWork?
        var ended = false
    }

    private let state = Mutex(State())

    /// The timeout was scheduled as `work`.
    func scheduled(_ work: ScheduledWork) {
        let endedFirst = state.withLock { s -> Bool in
            if s.ended { return true }
            s.work = work
            return false
        }
        if endedFirst { work.cancel() }
    }

    /// The call had its final event.
    func callEnded() {
        state.withLock { s -> ScheduledWork? in
            s.ended = true
            defer { s.work = nil }
            return s.work
        }?.cancel()
    }
}

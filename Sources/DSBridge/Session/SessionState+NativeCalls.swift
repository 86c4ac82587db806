// SPDX-License-Identifier: MIT
import DequeModule

/// ``SessionState``'s native → page transitions (PROTOCOL.md 3 and 5): the page's
/// readiness, which releases the invokes held until then (``PageReadiness``), and native
/// calls, numbered and queued or held, and their answers (``NativeCallBook``), each
/// recorded for the journal in cluster mode.
extension SessionState {
    // MARK: readiness (`_dsb.dsinit`)

    /// What the page becoming ready releases.
    struct Readiness: Sendable {
        /// The held invokes, now queued, with what queueing each gave.
        let released: [(callbackId: Int64, appended: Appended)]
        /// ``whenReady(_:)`` bodies, to run after the invokes went out.
        let waiters: [@Sendable () -> Void]
        /// The session went dirty: tell the journal.
        let registerJournal: Bool
    }

    /// The page signalled `dsinit`. - Returns: `nil` when it had already.
    mutating func markReady() -> Readiness? {
        guard let release = readiness.markReady() else { return nil }
        journal?.pageBecameReady(releasing: release.invokes.map(\.callbackId))
        let released = release.invokes.map { h in (h.callbackId, append(h.invoke, callbackId: h.callbackId)) }
        let register = journalNeedsRegistration()
        return Readiness(released: released, waiters: release.waiters, registerJournal: register)
    }

    /// Keeps `body` for ``markReady()`` unless the page is ready (`.now`) or the session
    /// ended (`.never`).
    mutating func whenReady(_ body: @escaping @Sendable () -> Void) -> PageReadiness.WhenReady {
        readiness.whenReady(ended: ended, body)
    }

    // MARK: native → page

    /// How a native-initiated call began.
    enum NativeCallStart: Sendable {
        /// The session ended: fail it with `sessionEnded`.
        case ended
        /// The invoke alone exceeds `replayMaxBytes`: fail it; no `callbackId` was used.
        case tooLarge(bytes: Int)
        /// Held or queued as `callbackId`; `appended` says whom to wake and what went wrong.
        case queued(callbackId: Int64, appended: Appended)
    }

    /// Numbers and queues an invoke (or holds it until `dsinit`), keeping `handler` for
    /// the page's answers. Invokes go out in the order made.
    /// `origin`: where the call's answers go when the session moves (journaled sessions).
    /// `answersInline`: `handler` never blocks and runs no application code, so the thread
    /// that reads the page's answer may run it.
    mutating func startNativeCall(
        _ invoke: EncodedInvoke, origin: String? = nil, answersInline: Bool = false, handler: @escaping NativeCallHandler
    ) -> NativeCallStart {
        if ended { return .ended }
        var start = startNativeCallUnjournaled(invoke, NativeCallReceiver(handler: handler, answersInline: answersInline))
        if journal != nil, case .queued(let callbackId, var appended) = start {
            let held = readiness.held.last.flatMap { $0.callbackId == callbackId ? $0.invoke.tail : nil }
            let register = journal?.nativeCallStarted(callbackId, nextCallbackId: nativeCalls.nextCallbackId, origin: origin, heldTail: held)
            appended.registerJournal = register == true || appended.registerJournal
            start = .queued(callbackId: callbackId, appended: appended)
        }
        return start
    }

    private mutating func startNativeCallUnjournaled(_ invoke: EncodedInvoke, _ receiver: NativeCallReceiver) -> NativeCallStart {
        let callbackId = nativeCalls.nextCallbackId
        if !readiness.isReady {
            // Held like any queued message: measured now (with the seq it would get if
            // released next), counted toward the replay bounds.
            let held = readiness.held.count
            let bytes = invoke.size(seq: log.lastSeq + Int64(held) + 1, callbackId: callbackId)
            if bytes > log.maxBytes { return .tooLarge(bytes: bytes) }
            _ = nativeCalls.start(receiver)  // an overflow ends the session, which fails it
            if held + log.keptCount + 1 > log.maxMessages {
                let bound = "\(log.maxMessages) messages held or unacknowledged (replayMaxMessages)"
                return .queued(callbackId: callbackId, appended: Appended(error: .boundExceeded(bound)))
            }
            if readiness.heldBytes + log.keptBytes + bytes > log.maxBytes {
                let bound = "over \(log.maxBytes) bytes held or unacknowledged (replayMaxBytes)"
                return .queued(callbackId: callbackId, appended: Appended(error: .boundExceeded(bound)))
            }
            readiness.hold(PageReadiness.HeldInvoke(callbackId: callbackId, invoke: invoke, bytes: bytes))
            return .queued(callbackId: callbackId, appended: Appended())
        }
        let appended = append(invoke, callbackId: callbackId)
        // Too large: never queued, and it uses no callbackId (PROTOCOL.md 2.4).
        if case .messageTooLarge(let bytes)? = appended.error { return .tooLarge(bytes: bytes) }
        _ = nativeCalls.start(receiver)
        return .queued(callbackId: callbackId, appended: appended)
    }

    /// Whether the journal passes the answer that page call `callID` brings (and forgets it).
    mutating func takeAnswerPassedByJournal(_ callID: Int64?) -> Bool {
        guard let callID else { return false }
        return journal?.takeAnswerPassed(callID) == true
    }

    /// Who receives the answers of native call `callbackId`; `final`: the call is over (it
    /// leaves, and the journal is told).
    mutating func nativeCallReceiver(_ callbackId: Int64, final: Bool) -> NativeCallReceiver? {
        guard final else { return nativeCalls.receiver(callbackId) }
        let receiver = nativeCalls.finish(callbackId)
        if receiver != nil { journal?.nativeCallEnded(callbackId) }
        return receiver
    }

    /// Whether the journal must be told about records made since (a native call ended).
    mutating func journalNeedsRegistration() -> Bool {
        journal?.needsRegistration() == true
    }

    /// Stops waiting for native call `callbackId` (a held one is never delivered now).
    /// - Returns: its handler, if it was still waiting.
    mutating func abandonNativeCall(_ callbackId: Int64) -> NativeCallHandler? {
        if readiness.dropHeld(callbackId) { journal?.heldDropped(callbackId) }
        return nativeCallReceiver(callbackId, final: true)?.handler
    }

    /// A page answered a native call. `callerMayRun`: the calling thread may run
    /// application code (it is not the network thread); answers still go in order.
    mutating func deliver(
        _ event: NativeCallEvent, to handler: @escaping NativeCallHandler, callerMayRun: Bool
    ) -> NativeCallBook.AnswerDelivery {
        nativeCalls.deliver(event, to: handler, callerMayRun: callerMayRun)
    }

    /// The answers queued for the delivering worker, all at once; none: the worker stops.
    mutating func takeAnswers() -> Deque<NativeCallBook.QueuedAnswer> {
        nativeCalls.takeAnswers()
    }
}

// SPDX-License-Identifier: MIT
import DequeModule

/// The native-initiated calls of one session (PROTOCOL.md 3) as a value owned by
/// ``SessionState``: their `callbackId`s, who receives each call's answers until its final
/// one, and the page's answers waiting for a worker to run their handlers, in order.
///
/// Timeouts are the shell's (``NativeCallTimeout``): a timed-out call is an
/// ``finish(_:)`` like a final answer. Nothing here runs a handler.
struct NativeCallBook: Sendable {
    /// Who runs the handler of a page's answer.
    enum AnswerDelivery: Sendable, Equatable {
        /// The caller, now (nothing waits ahead of it).
        case caller
        /// The worker already delivering this session's answers.
        case runningWorker
        /// A new worker: start one (``takeAnswers()`` until it returns nothing).
        case newWorker
    }

    /// A page answer whose handler waits for a worker.
    typealias QueuedAnswer = (handler: NativeCallHandler, event: NativeCallEvent)

    /// The `callbackId` the next call gets.
    private(set) var nextCallbackId: Int64 = 1
    /// The calls waiting for the page's answers, by `callbackId`.
    private var receivers: [Int64: NativeCallReceiver] = [:]
    /// Page answers whose handlers wait to run off the network thread, in order.
    private var answersToDeliver = Deque<QueuedAnswer>()
    /// A worker is running the queued answers (until ``takeAnswers()`` returns none).
    private(set) var deliveringAnswers = false

    init() {}

    /// A book continued from a journal's snapshot: `handlers` by `callbackId`, numbering
    /// on from `nextCallbackId`.
    init(restoring handlers: [Int64: NativeCallHandler], nextCallbackId: Int64) {
        receivers = handlers.mapValues { NativeCallReceiver(handler: $0, answersInline: false) }
        self.nextCallbackId = nextCallbackId
    }

    /// Calls waiting for their final answer.
    var count: Int { receivers.count }

    /// Numbers a new call whose answers go to `receiver`. - Returns: its `callbackId`.
    mutating func start(_ receiver: NativeCallReceiver) -> Int64 {
        let callbackId = nextCallbackId
        nextCallbackId += 1
        receivers[callbackId] = receiver
        return callbackId
    }

    /// Who receives the answers of call `callbackId` (an answer that is not final).
    func receiver(_ callbackId: Int64) -> NativeCallReceiver? { receivers[callbackId] }

    /// Call `callbackId` is over (its final answer, its timeout, or abandoned): it leaves.
    /// - Returns: who received its answers, if it was still waiting.
    mutating func finish(_ callbackId: Int64) -> NativeCallReceiver? {
        receivers.removeValue(forKey: callbackId)
    }

    /// The session ended: every call leaves. - Returns: their handlers, to fail.
    mutating func removeAll() -> [NativeCallHandler] {
        defer { receivers.removeAll() }
        return receivers.values.map(\.handler)
    }

    /// The session moved: its calls are forgotten here without failing them (their answers
    /// reach their origin through the new owner).
    mutating func forgetAll() {
        receivers.removeAll()
    }

    /// A page answered a native call. `callerMayRun`: the calling thread may run
    /// application code (it is not the network thread); answers still go in order.
    mutating func deliver(_ event: NativeCallEvent, to handler: @escaping NativeCallHandler, callerMayRun: Bool) -> AnswerDelivery {
        if callerMayRun, !deliveringAnswers, answersToDeliver.isEmpty { return .caller }
        answersToDeliver.append((handler, event))
        if deliveringAnswers { return .runningWorker }
        deliveringAnswers = true
        return .newWorker
    }

    /// The answers queued for the delivering worker, all at once (one lock per burst);
    /// none: the worker stops.
    mutating func takeAnswers() -> Deque<QueuedAnswer> {
        if answersToDeliver.isEmpty {
            deliveringAnswers = false
            return []
        }
        let taken = answersToDeliver
        answersToDeliver.removeAll()
        return taken
    }
}

// SPDX-License-Identifier: MIT

/// What a page's answer (`_dsb.returnValue`) to a native-initiated call brings.
public enum NativeCallEvent: Sendable, Equatable {
    /// A progress value (`complete: false`); more will follow.
    case progress(JSONValue)
    /// The final value.
    case completed(JSONValue)
    /// The call failed; it is over.
    case failed(NativeCallError)
}

/// Why a native-initiated call of a JavaScript method failed.
public enum NativeCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The page answered with an `error` (the method is not registered or threw).
    case javaScript(String)
    /// The session ended before the page answered.
    case sessionEnded
    /// No final answer came in time.
    case timeout
    /// The call's message alone is larger than the replay bound, so it was never sent.
    case tooLarge(bytes: Int)

    public var description: String {
        switch self {
        case .javaScript(let message): return "the page answered with an error: \(message)"
        case .sessionEnded: return "the session ended before the page answered"
        case .timeout: return "the page did not answer in time"
        case .tooLarge(let bytes): return "the call is \(bytes) bytes, more than the replay bound"
        }
    }
}

/// A handler for the answers to one native-initiated call; called from any thread.
public typealias NativeCallHandler = @Sendable (NativeCallEvent) -> Void

/// Who receives the answers of a native call a session waits for.
struct NativeCallReceiver: Sendable {
    let handler: NativeCallHandler
    /// `handler` never blocks and runs no application code (a cluster's forwarder), so the
    /// thread that reads the page's answer may run it.
    let answersInline: Bool
}

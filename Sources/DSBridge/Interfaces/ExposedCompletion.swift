// SPDX-License-Identifier: MIT

/// What an asynchronous method hands to its completion.
public enum CompletionDelivery: Sendable {
    /// A value; `complete: false` means more will follow.
    case value(JSONValue, complete: Bool)
    /// The method failed; this ends the call.
    case failure(message: String)
}

/// The completion an asynchronous interface method calls, from any thread, once or
/// repeatedly. Deliveries after the final one are ignored.
public struct ExposedCompletion: Sendable {
    private let deliver: @Sendable (CompletionDelivery) -> Void

    /// Wraps the function that receives each delivery.
    public init(_ deliver: @escaping @Sendable (CompletionDelivery) -> Void) {
        self.deliver = deliver
    }

    /// Delivers `value`; `complete: false` announces more values.
    public func callAsFunction<T: Encodable>(_ value: T, complete: Bool = true) {
        do {
            deliver(.value(try ExposedResult.encode(value), complete: complete))
        } catch {
            deliver(.failure(message: "result could not be encoded as JSON: \(error)"))
        }
    }

    /// Delivers an already-encoded value.
    public func deliver(_ value: JSONValue, complete: Bool = true) {
        deliver(.value(value, complete: complete))
    }

    /// Ends the call with an error.
    public func fail(_ message: String) {
        deliver(.failure(message: message))
    }
}

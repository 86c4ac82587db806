// SPDX-License-Identifier: MIT
import Synchronization

/// Why a typed call of a JavaScript method failed.
public enum JavaScriptCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The page answered, but not with the asked type.
    case returnTypeMismatch(JSONValue)
    /// The call itself failed (page error, session ended, timeout, too large).
    case call(NativeCallError)
    /// The calling task was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case .returnTypeMismatch(let value): return "the page answered \(value), which does not decode as the asked type"
        case .call(let error): return error.description
        case .cancelled: return "the call was cancelled"
        }
    }
}

/// A value a JavaScript method delivered: progress (`complete: false`) or the final one.
public enum JavaScriptDelivery: Sendable, Equatable {
    case progress(JSONValue)
    case final(JSONValue)
}

extension BridgeSession {
    /// The default time a native-initiated call waits for its final answer.
    public static let defaultJavaScriptTimeout: Duration = .seconds(30)

    /// Calls the page's JavaScript method `method` and decodes its final answer as `T`
    /// (DSBridge-Swift's `call(_:with:thatReturns:completion:)`). Progress values are skipped.
    public func call<T: Decodable & Sendable>(
        _ method: String, with args: [JSONValue] = [], thatReturns type: T.Type,
        timeout: Duration = BridgeSession.defaultJavaScriptTimeout,
        completion: @escaping @Sendable (Result<T, JavaScriptCallError>) -> Void
    ) {
        callJavaScript(method, args: args, timeout: timeout) { event in
            switch event {
            case .progress: return
            case .completed(let value):
                do {
                    completion(.success(try JSONValueCoding.decode(T.self, from: value)))
                } catch {
                    completion(.failure(.returnTypeMismatch(value)))
                }
            case .failed(let error):
                completion(.failure(.call(error)))
            }
        }
    }

    /// Calls the page's JavaScript method `method` and returns its final answer as `T`.
    /// Cancelling the calling task stops the wait.
    public func call<T: Decodable & Sendable>(
        _ method: String, with args: [JSONValue] = [], thatReturns type: T.Type = T.self,
        timeout: Duration = BridgeSession.defaultJavaScriptTimeout
    ) async throws(JavaScriptCallError) -> T {
        var values = deliveries(of: method, with: args, timeout: timeout).makeAsyncIterator()
        while true {
            let next: JavaScriptDelivery?
            do {
                next = try await values.next()
            } catch let error as JavaScriptCallError {
                throw error
            } catch {
                throw .cancelled
            }
            guard let delivery = next else { throw .cancelled }
            if case .final(let value) = delivery {
                do {
                    return try JSONValueCoding.decode(T.self, from: value)
                } catch {
                    throw .returnTypeMismatch(value)
                }
            }
        }
    }

    /// Calls `method` and streams what the page delivers: every progress value, then the
    /// final one; the stream throws ``JavaScriptCallError`` on failure. Ending the
    /// iteration (or cancelling its task) stops the wait.
    public func deliveries(
        of method: String, with args: [JSONValue] = [], timeout: Duration = BridgeSession.defaultJavaScriptTimeout
    ) -> AsyncThrowingStream<JavaScriptDelivery, any Error> {
        AsyncThrowingStream { continuation in
            let id = callJavaScript(method, args: args, timeout: timeout) { event in
                switch event {
                case .progress(let value):
                    continuation.yield(.progress(value))
                case .completed(let value):
                    continuation.yield(.final(value))
                    continuation.finish()
                case .failed(let error):
                    continuation.finish(throwing: JavaScriptCallError.call(error))
                }
            }
            continuation.onTermination = { [weak self] termination in
                if case .cancelled = termination, let id { self?.abandonJavaScriptCall(id, reason: .sessionEnded) }
            }
        }
    }

    /// Whether the page registered a JavaScript method `name` (an `invoke` of
    /// `_hasJavascriptMethod` with `[name, "all"]`).
    public func hasJavascriptMethod(named name: String, timeout: Duration = BridgeSession.defaultJavaScriptTimeout) async throws(JavaScriptCallError) -> Bool {
        let answer: JSONValue = try await call("_hasJavascriptMethod", with: [.string(name), "all"], thatReturns: JSONValue.self, timeout: timeout)
        switch answer {
        case .bool(let b): return b
        case .null: return false
        case .integer(let i): return i != 0
        default: throw .returnTypeMismatch(answer)
        }
    }
}

extension Bridge {
    /// Calls `method` with `args` on every ready session; `handler` gets each session's
    /// events. Returns how many sessions were called.
    @discardableResult
    public func broadcast(
        _ method: String, args: [JSONValue] = [], timeout: Duration = BridgeSession.defaultJavaScriptTimeout,
        handler: @escaping @Sendable (BridgeSession, NativeCallEvent) -> Void = { _, _ in }
    ) -> Int {
        let ready = sessions.filter(\.isReady)
        for session in ready {
            session.callJavaScript(method, args: args, timeout: timeout) { handler(session, $0) }
        }
        return ready.count
    }
}

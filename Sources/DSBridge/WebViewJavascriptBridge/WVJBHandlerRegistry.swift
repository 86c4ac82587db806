// SPDX-License-Identifier: MIT
import Synchronization

/// The native WebViewJavascriptBridge handlers of a bridge, by name (any string, spaces
/// included; matched byte for byte). Pages call them with `callHandler` (`_wvjb.call`,
/// PROTOCOL.md 9.1). Safe to use from any thread; changes apply to calls that start afterwards.
public final class WVJBHandlerRegistry: Sendable {
    private let handlers = Mutex<[String: WVJBHandler]>([:])

    init() {}

    /// Registers `handler` under `name`, replacing an earlier one (the original's
    /// `registerHandler:handler:`).
    public func register(_ name: String, handler: @escaping WVJBHandler) {
        handlers.withLock { $0[name] = handler }
    }

    /// Removes the handler of `name` (the original's `removeHandler:`).
    public func remove(_ name: String) {
        _ = handlers.withLock { $0.removeValue(forKey: name) }
    }

    /// The handler registered under exactly these bytes.
    func handler(named name: String) -> WVJBHandler? {
        handlers.withLock { table in
            guard let index = table.index(forKey: name), InterfaceRegistry.sameBytes(table.keys[index], name) else { return nil }
            return table.values[index]
        }
    }

    /// The registered names, sorted.
    public var names: [String] {
        handlers.withLock { $0.keys.sorted() }
    }
}

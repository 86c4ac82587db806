// SPDX-License-Identifier: MIT
import CLibWebSockets
import Logging
import Synchronization

/// Forwards libwebsockets' own log lines into swift-log.
enum LWSLog {
    static let logger = Mutex<Logger?>(nil)

    static func install(_ logger: Logger) {
        var l = logger
        l[metadataKey: "bridge.source"] = "libwebsockets"
        self.logger.withLock { $0 = l }
        lws_set_log_level(Int32(LLL_ERR | LLL_WARN | LLL_NOTICE), lwsLogEmit)
    }

    /// Whether an lws line is a trace it logs at the wrong level. lws 4.1's
    /// `adopt_socket_readbuf` logs "calling service" / "deferring handling ah" as errors on
    /// every socket adopted with bytes already read (a WebSocket upgrade after a kept-alive
    /// request, ServiceLoop+PlainHTTP): nothing went wrong then.
    static func isMisleveledTrace(_ text: String) -> Bool {
        text.hasPrefix("adopt_socket_readbuf: ")
    }
}

/// lws log sink (any thread lws logs from; in practice the service thread).
private func lwsLogEmit(_ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    var text = String(cString: line)
    while text.hasSuffix("\n") { text.removeLast() }
    guard let logger = LWSLog.logger.withLock({ $0 }) else { return }
    switch level {
    case Int32(LLL_ERR) where LWSLog.isMisleveledTrace(text): logger.debug("\(text)")
    case Int32(LLL_ERR): logger.error("\(text)")
    case Int32(LLL_WARN): logger.warning("\(text)")
    default: logger.debug("\(text)")
    }
}

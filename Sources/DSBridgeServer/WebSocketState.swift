// SPDX-License-Identifier: MIT
import DSBridge
import Dispatch

/// Service-thread state of one WebSocket: the lws handle, the message being reassembled
/// and the close the transport itself decided (size, binary frame, hello timeout).
final class WebSocketState {
    let id: UInt64
    let wsi: OpaquePointer
    let connection: BridgeConnection
    /// The connection's waker; reset each time the service thread takes its wake.
    let waker: InboxWaker
    var message: [UInt8] = []
    var readsPaused = false
    /// A close decided by the transport; written from WRITEABLE (never from RECEIVE).
    var forcedClose: (code: Int, reason: String)?
    let helloDeadline: DispatchTime
    var lastWrite = DispatchTime.now()
    var heartbeatDue = false

    init(id: UInt64, wsi: OpaquePointer, connection: BridgeConnection, waker: InboxWaker, helloTimeoutMs: Int) {
        self.id = id
        self.wsi = wsi
        self.connection = connection
        self.waker = waker
        self.helloDeadline = .now() + .milliseconds(helloTimeoutMs)
    }
}

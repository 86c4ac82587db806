// SPDX-License-Identifier: MIT
import DSBridge

/// Service-thread state of one WebSocket: the lws handle, the message being reassembled,
/// its timing (``SocketLiveness``) and the close the transport itself decided (size,
/// binary frame, hello timeout).
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
    var liveness: SocketLiveness
    /// A WebSocket ping is to be written at the next WRITEABLE.
    var pingDue = false
    /// An `hb` message is to be written at the next WRITEABLE (if nothing else is).
    var heartbeatDue = false
    /// The close frame went out and the sending side is shut down: input is read and
    /// dropped until the page closes too (or the linger deadline), so that closing never
    /// resets a connection whose close frame the page has not read yet.
    var lingering = false
    /// Listed for ``ServiceLoop/flushInlineAnswers()`` at the end of this loop pass.
    var flushQueued = false
    /// lws reported CLOSED: the socket is out of ``ServiceLoop/sockets``.
    var isClosed = false

    init(id: UInt64, wsi: OpaquePointer, connection: BridgeConnection, waker: InboxWaker, liveness: SocketLiveness) {
        self.id = id
        self.wsi = wsi
        self.connection = connection
        self.waker = waker
        self.liveness = liveness
    }
}

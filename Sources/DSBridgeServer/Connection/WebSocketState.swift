// SPDX-License-Identifier: MIT
import DSBridge

/// Service-thread record of one WebSocket of the page port: its socket (the connection the
/// upgrade came on), the bridge's side of it, and its ``WebSocketConnectionMachine``
/// (ServiceLoop+WebSocket is the shell).
final class WebSocketState {
    let id: UInt64
    /// The socket, its poll handle and what the kernel has not taken yet.
    let channel: PlainHTTPConnection
    let connection: BridgeConnection
    /// The connection's waker; reset each time the service thread takes its wake.
    let waker: InboxWaker
    var machine: WebSocketConnectionMachine
    /// The page's frames, read as they come (beside the machine: the reader calls back for
    /// each frame, and what a frame does changes the machine).
    var reader: WebSocketFrameReader
    /// The deadline entry queued for it, if any (older entries are stale).
    var armedDeadline: UInt64?
    /// Listed for ``ServiceLoop/flushInlineAnswers()`` at the end of this loop pass.
    var flushQueued = false
    /// The socket is closed and out of ``ServiceLoop/sockets``.
    var isClosed = false

    init(
        id: UInt64, channel: PlainHTTPConnection, connection: BridgeConnection, waker: InboxWaker,
        machine: WebSocketConnectionMachine, maxMessageBytes: Int
    ) {
        self.id = id
        self.reader = WebSocketFrameReader(maxMessageBytes: maxMessageBytes)
        self.channel = channel
        self.connection = connection
        self.waker = waker
        self.machine = machine
    }
}

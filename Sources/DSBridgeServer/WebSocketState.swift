// SPDX-License-Identifier: MIT
import DSBridge

/// Service-thread state of one WebSocket of the page port: its socket (the connection the
/// upgrade came on), the frames being read, its timing (``SocketLiveness``) and the close
/// the transport itself decided (size, binary frame, hello timeout, a protocol error).
final class WebSocketState {
    let id: UInt64
    /// The socket, its poll handle and what the kernel has not taken yet.
    let channel: PlainHTTPConnection
    let connection: BridgeConnection
    /// The connection's waker; reset each time the service thread takes its wake.
    let waker: InboxWaker
    /// The page's frames, read as they come.
    var reader: WebSocketFrameReader
    var readsPaused = false
    /// A close decided by the transport or the session; written before anything else queued.
    var forcedClose: (code: Int, reason: String)?
    /// The forced close waits for a frame the kernel has taken only in part (the page does
    /// not read): the socket is dropped at ``ServiceLoop/lingerMs`` unless it goes out first.
    var forcedCloseDeadlineArmed = false
    var liveness: SocketLiveness
    /// A WebSocket ping is to be written.
    var pingDue = false
    /// The payload of a pong owed to the page's ping.
    var pongDue: [UInt8]?
    /// An `hb` message is to be written (if nothing else is).
    var heartbeatDue = false
    /// The close frame went out (or is going out): input is read and dropped until the page
    /// closes too (or the linger deadline), so that closing never resets a connection whose
    /// close frame the page has not read yet.
    var lingering = false
    /// Listed for ``ServiceLoop/flushInlineAnswers()`` at the end of this loop pass.
    var flushQueued = false
    /// The socket is closed and out of ``ServiceLoop/sockets``.
    var isClosed = false

    init(
        id: UInt64, channel: PlainHTTPConnection, connection: BridgeConnection, waker: InboxWaker,
        liveness: SocketLiveness, maxMessageBytes: Int
    ) {
        self.id = id
        self.channel = channel
        self.connection = connection
        self.waker = waker
        self.liveness = liveness
        self.reader = WebSocketFrameReader(maxMessageBytes: maxMessageBytes)
    }
}

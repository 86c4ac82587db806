// SPDX-License-Identifier: MIT
import Dispatch
import DequeModule
import Synchronization

/// The transport's hook on one socket: `wake()` may be called from any thread to say the
/// connection has something to write, a close to perform or a read-pause change. The
/// transport then calls ``BridgeConnection/nextAction()`` on its own thread.
public protocol ConnectionWaker: Sendable {
    func wake()
}

/// What the transport should do next on a socket.
public enum ConnectionAction: Sendable, Equatable {
    /// Write this text frame.
    case write([UInt8])
    /// Close with this code and reason (after everything before it was written).
    case close(code: Int, reason: String)
}

/// One WebSocket as the bridge sees it: frames in, actions out. Frames are processed in
/// order, one at a time, off the transport's thread; the transport only moves bytes.
public final class BridgeConnection: Sendable {
    struct State: Sendable {
        var inbox = Deque<[UInt8]>()
        var processing = false
        var helloSeen = false
        var session: BridgeSession?
        /// Frames written before the session's messages (the `welcome`).
        var control = Deque<[UInt8]>()
        var close: (code: Int, reason: String)?
        var closeTaken = false
        var readsPaused = false
        var socketClosed = false
    }

    let bridge: Bridge
    let waker: any ConnectionWaker
    /// The TCP peer address (for per-address limits and logs).
    public let peerAddress: String
    /// The `Origin` header of the upgrade, if any.
    public let origin: String?
    private let state = Mutex(State())

    init(bridge: Bridge, peerAddress: String, origin: String?, waker: any ConnectionWaker) {
        self.bridge = bridge
        self.peerAddress = peerAddress
        self.origin = origin
        self.waker = waker
    }

    // MARK: transport side (called on the transport's thread)

    /// Hands over one complete text message from the page. Returns at once.
    public func receive(_ frame: [UInt8]) {
        let start = state.withLock { s -> Bool in
            if s.close != nil || s.socketClosed { return false }
            s.inbox.append(frame)
            if s.processing { return false }
            s.processing = true
            return true
        }
        if start { DispatchQueue.global().async { self.processInbox() } }
    }

    /// The next thing to do on the socket, or `nil` when there is nothing.
    public func nextAction() -> ConnectionAction? {
        let (control, session, close) = state.withLock { s -> ([UInt8]?, BridgeSession?, (Int, String)?) in
            if let c = s.control.popFirst() { return (c, nil, nil) }
            return (nil, s.session, s.close)
        }
        if let control { return .write(control) }
        if let session, let frame = session.takeFrame(for: self) { return .write(frame) }
        guard let close else { return nil }
        return state.withLock { s in
            if s.closeTaken { return nil }
            s.closeTaken = true
            return .close(code: close.0, reason: close.1)
        }
    }

    /// Whether the bridge wants the transport to stop reading this socket (backpressure).
    public var wantsReadsPaused: Bool { state.withLock { $0.readsPaused } }

    /// Whether this socket is still waiting for its `hello`.
    public var awaitsHello: Bool { state.withLock { !$0.helloSeen } }

    /// The socket is gone; its session (if any) starts its grace period.
    public func socketClosed() {
        let session = state.withLock { s -> BridgeSession? in
            s.socketClosed = true
            s.inbox.removeAll()
            let session = s.session
            s.session = nil
            return session
        }
        session?.detach(self)
    }

    // MARK: bridge side (any thread)

    /// Asks the transport to close the socket with `code` after what is queued.
    func requestClose(code: Int, reason: String) {
        let changed = state.withLock { s -> Bool in
            if s.close != nil { return false }
            s.close = (code, reason)
            s.inbox.removeAll()
            return true
        }
        if changed { waker.wake() }
    }

    /// Detaches the session without closing (the session ended or moved to another socket).
    func dropSession(_ session: BridgeSession) {
        state.withLock { s in
            if s.session === session { s.session = nil }
        }
    }

    func enqueueControl(_ frame: [UInt8]) {
        state.withLock { $0.control.append(frame) }
        waker.wake()
    }

    func setReadsPaused(_ paused: Bool) {
        let changed = state.withLock { s -> Bool in
            if s.readsPaused == paused { return false }
            s.readsPaused = paused
            return true
        }
        if changed { waker.wake() }
    }

    private func processInbox() {
        while true {
            let next = state.withLock { s -> ([UInt8], Bool, BridgeSession?)? in
                guard s.close == nil, !s.socketClosed, let frame = s.inbox.popFirst() else {
                    s.processing = false
                    return nil
                }
                return (frame, s.helloSeen, s.session)
            }
            guard let (frame, helloSeen, session) = next else { return }
            process(frame, helloSeen: helloSeen, session: session)
        }
    }

    private func process(_ frame: [UInt8], helloSeen: Bool, session: BridgeSession?) {
        let messages: [PageMessage]
        do {
            messages = try PageFrameDecoder(maxDepth: bridge.configuration.maxDepth).decode(frame, helloSeen: helloSeen)
        } catch {
            bridge.logger.debug("protocol error: \(error.reason)", metadata: ["bridge.peer": "\(peerAddress)"])
            requestClose(code: 4000, reason: error.reason)
            return
        }
        var current = session
        for message in messages {
            switch message {
            case .hello(let hello):
                state.withLock { $0.helloSeen = true }
                switch bridge.attach(hello, connection: self) {
                case .success(let s):
                    current = s
                case .failure(let refusal):
                    requestClose(code: refusal.code, reason: refusal.reason)
                    return
                }
            case .call(let call):
                current?.receiveCall(call, from: self)
            case .cancel(let id):
                current?.cancel(callID: id)
            case .ack(let seq):
                current?.acknowledge(seq)
            }
        }
    }

    /// Attaches `session` and queues `welcome` (called by the bridge during `hello`).
    func adopt(_ session: BridgeSession, welcome: [UInt8]) -> Bool {
        let adopted = state.withLock { s in
            if s.socketClosed { return false }
            s.session = session
            s.control.append(welcome)
            return true
        }
        if adopted { waker.wake() }
        return adopted
    }
}

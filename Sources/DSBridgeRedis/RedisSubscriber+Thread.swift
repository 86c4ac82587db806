// SPDX-License-Identifier: MIT
import Logging

// The subscriber's thread: connect, subscribe, read messages, reconnect. Everything here
// runs on it. The connection stays non-blocking; the thread waits only in poll.
extension RedisSubscriber {
    func run() {
        var backoff = RedisBackoff()
        var failedAttempts = 0
        while !isStopping {
            var failure: HiredisFailure?
            switch HiredisConnection.open(endpoint, timeoutMs: connectTimeoutMs, wake: wake, shouldStop: { isStopping }) {
            case .stopped:
                break
            case .failed(let why):
                failedAttempts += 1
                failure = why
            case .connected(let connection):
                if let lost = listen(on: connection) {
                    failure = lost
                    if isConnected {
                        connectionLost(lost)
                        failedAttempts = 0
                        backoff.reset()
                    } else {
                        failedAttempts += 1
                    }
                }
            }
            if let failure, !isStopping {
                let delay = backoff.nextDelayMs()
                if failedAttempts == 1 {
                    logger.warning("redis subscriber connection failed: \(failure); retrying with backoff", metadata: ["redis.retry_ms": "\(delay)"])
                } else if failedAttempts > 1 {
                    logger.debug("redis subscriber attempt \(failedAttempts) failed: \(failure)", metadata: ["redis.retry_ms": "\(delay)"])
                }
                pause(milliseconds: delay)
            }
        }
        state.withLock { state in
            state.connected = false
            connectedFlag.store(false, ordering: .releasing)
        }
        logger.debug("redis subscriber stopped")
    }

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Subscribes to every channel, then hands messages to the handler until the connection
    /// fails (the failure) or the subscriber stops (nil).
    private func listen(on connection: HiredisConnection) -> HiredisFailure? {
        let channels = state.withLock { state in
            state.added = []
            return state.channels
        }
        var unconfirmed = Set(channels)
        if !channels.isEmpty, let failure = connection.append([subscribeCommand(channels)]) { return failure }
        if channels.isEmpty { markConnected() }
        while true {
            let events = PollWait.wait(socket: connection.fd, readable: true, writable: connection.hasPendingOutput, wake: wake, timeoutMs: -1)
            if isStopping { return nil }
            if events.woken {
                let added = state.withLock { state in
                    defer { state.added = [] }
                    return state.added
                }
                if !added.isEmpty, let failure = connection.append([subscribeCommand(added)]) { return failure }
            }
            if connection.hasPendingOutput, let failure = connection.writeSome() { return failure }
            guard events.readable else { continue }
            if let failure = connection.readAvailable() { return failure }
            replies: while true {
                switch connection.bufferedReply() {
                case .failure(let failure): return failure
                case .success(nil): break replies
                case .success(let reply?): handle(reply, unconfirmed: &unconfirmed)
                }
            }
        }
    }

    private func subscribeCommand(_ channels: [[UInt8]]) -> RedisCommand {
        RedisCommand(arguments: [Array("SUBSCRIBE".utf8)] + channels)
    }

    /// One push from Redis: a message, a subscription confirmed, or an error.
    private func handle(_ reply: RedisValue, unconfirmed: inout Set<[UInt8]>) {
        guard let parts = reply.arrayValue, let kind = parts.first?.bytesValue else {
            if let message = reply.errorMessage { logger.warning("redis refused a subscription: \(message)") }
            return
        }
        switch String(decoding: kind, as: UTF8.self) {
        case "message":
            guard parts.count == 3, let channel = parts[1].bytesValue, let payload = parts[2].bytesValue else { return }
            messageCount.add(1, ordering: .relaxed)
            handler(channel, payload)
        case "subscribe":
            guard parts.count == 3, let channel = parts[1].bytesValue else { return }
            if unconfirmed.remove(channel) != nil, unconfirmed.isEmpty { markConnected() }
        default:
            break
        }
    }

    private func markConnected() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            state.connected = true
            connectedFlag.store(true, ordering: .releasing)
            return state.onConnected
        }
        connectionCount.add(1, ordering: .relaxed)
        logger.info("redis subscriber connected", metadata: ["redis.channels": "\(channels.count)"])
        handler?()
    }

    private func connectionLost(_ failure: HiredisFailure) {
        let handler = state.withLock { state in
            state.connected = false
            connectedFlag.store(false, ordering: .releasing)
            return state.onDisconnected
        }
        logger.warning("redis subscriber connection lost: \(failure); reconnecting")
        handler?(.unavailable("the subscriber's connection to \(endpoint) was lost: \(failure)"))
    }

    /// Waits `milliseconds` before the next attempt, or less when the subscriber stops.
    private func pause(milliseconds: Int) {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        while !isStopping, ContinuousClock.now < deadline {
            _ = PollWait.wait(socket: -1, wake: wake, timeoutMs: PollWait.milliseconds(until: deadline))
        }
    }
}

// SPDX-License-Identifier: MIT
import Logging

// The client's thread: connect, serve round trips, reconnect. Everything here runs on it.
extension RedisClient {
    func run() {
        var backoff = RedisBackoff()
        var failedAttempts = 0
        while !isStopping {
            var retryDelayMs: Int?
            switch connect() {
            case .stopped:
                break
            case .failed(let failure):
                failedAttempts += 1
                let delay = backoff.nextDelayMs()
                noteUnavailable("not connected to \(endpoint): \(failure); retrying (attempt \(failedAttempts + 1) in \(delay) ms)")
                if failedAttempts == 1 {
                    logger.warning("redis connection failed: \(failure); retrying with backoff", metadata: ["redis.retry_ms": "\(delay)"])
                } else {
                    logger.debug("redis connection attempt \(failedAttempts) failed: \(failure)", metadata: ["redis.retry_ms": "\(delay)"])
                }
                retryDelayMs = delay
            case .connected(let connection):
                backoff.reset()
                logger.info("redis connected", metadata: failedAttempts > 0 ? ["redis.failed_attempts": "\(failedAttempts)"] : [:])
                failedAttempts = 0
                if let failure = serve(connection) {
                    connectionLost(failure)
                    retryDelayMs = backoff.nextDelayMs()
                }
            }
            // The connection, if any, is closed here (it was bound only in its case).
            if let retryDelayMs { pause(milliseconds: retryDelayMs) }
        }
        let rest = state.withLock { state in
            state.connected = false
            connectedFlag.store(false, ordering: .releasing)
            state.unavailableReason = "the client is stopped"
            defer { state.queue = [] }
            return state.queue
        }
        fail(rest, with: .closed)
        logger.debug("redis client stopped")
    }

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// What ``connect()`` made of an attempt.
    enum ConnectOutcome {
        case connected(HiredisConnection)
        case failed(HiredisFailure)
        case stopped
    }

    /// Connects, selects the database, runs ``onConnected``, then lets batches in.
    private func connect() -> ConnectOutcome {
        let connection: HiredisConnection
        switch HiredisConnection.open(endpoint, timeoutMs: connectTimeoutMs, wake: wake, shouldStop: { isStopping }) {
        case .stopped: return .stopped
        case .failed(let failure): return .failed(failure)
        case .connected(let made): connection = made
        }
        if let failure = connection.makeBlocking(timeoutMs: commandTimeoutMs) { return .failed(failure) }
        if endpoint.database != 0 {
            switch connection.roundTrip([RedisCommand("SELECT", endpoint.database)]) {
            case .failure(let failure): return .failed(failure)
            case .success(let replies):
                if let message = replies.first?.errorMessage {
                    return .failed(
                        HiredisFailure(
                            message: "SELECT \(endpoint.database) failed: \(message) (the server has fewer databases: see 'databases' in redis.conf)"))
                }
            }
        }
        if let handler = onConnected {
            let setup = RedisSetupConnection(connection: connection, endpoint: endpoint)
            defer { setup.close() }
            do {
                try handler(setup)
            } catch {
                return .failed(HiredisFailure(message: "onConnected failed: \(error)"))
            }
            if let failure = setup.failure { return .failed(failure) }
        }
        let admitted = state.withLock { state in
            guard !state.stopping else { return false }
            state.connected = true
            connectedFlag.store(true, ordering: .releasing)
            return true
        }
        guard admitted else { return .stopped }
        connectionCount.add(1, ordering: .relaxed)
        return .connected(connection)
    }

    /// Serves round trips until the connection fails (the failure) or the client stops (nil).
    private func serve(_ connection: HiredisConnection) -> HiredisFailure? {
        while true {
            let taken: [Batch]? = state.withLock { state in
                if state.stopping { return nil }
                if state.queue.isEmpty {
                    state.threadIdle = true
                    state.idleConnection = LentConnection(connection: connection)
                    return []
                }
                defer { state.queue = [] }
                return state.queue
            }
            guard let batches = taken else { return nil }
            if batches.isEmpty {
                // Idle: sleep until a send wakes us, or the socket says something. Replies
                // are read for batches their senders wrote meanwhile (``State/written``);
                // with none, anything readable is the end of the connection (Redis stopped,
                // or closed an idle client) or data nobody asked for: either way it is
                // dropped now, so that a send learns at once that Redis is down.
                // A batch a sender writes meanwhile wakes the thread by its reply; the
                // deadline bounds the wait for a reply that never comes (the reads then
                // time out: a sender's batch fails within about twice the command timeout).
                let events = PollWait.wait(socket: connection.fd, wake: wake, timeoutMs: commandTimeoutMs)
                // A sender holding the connection for a prepared batch wakes the thread when
                // it gives it back; until then the socket is not the thread's.
                while state.withLock({ s in
                    s.threadAwaitsLender = s.lentToSender
                    return s.lentToSender
                }) {
                    _ = PollWait.wait(socket: -1, wake: wake, timeoutMs: commandTimeoutMs)
                }
                let written = state.withLock { state in
                    state.threadIdle = false
                    state.idleConnection = nil
                    defer { state.written = [] }
                    return state.written
                }
                if !written.isEmpty {
                    if let failure = readReplies(written, on: connection) { return failure }
                    continue
                }
                if events.readable {
                    return connection.readAvailable() ?? HiredisFailure(message: "redis sent data nobody asked for; the connection is dropped")
                }
                continue
            }
            if let failure = roundTrip(batches, on: connection) { return failure }
        }
    }

    /// Writes every batch's commands in one go, then reads the replies and completes each
    /// batch in turn (group commit).
    private func roundTrip(_ batches: [Batch], on connection: HiredisConnection) -> HiredisFailure? {
        var ready: [(batch: Batch, commands: [RedisCommand])] = []
        ready.reserveCapacity(batches.count)
        for batch in batches {
            switch batch.work {
            case .commands(let commands):
                ready.append((batch, commands))
            case .prepare(let prepare):
                switch PreparedCommands(prepare()) {
                case .nothing: batch.completion(.success([]))
                case .invalid(let problem): fail(CollectionOfOne(batch), with: .invalidCommand(problem))
                case .ready(let commands): ready.append((batch, commands))
                }
            }
        }
        guard !ready.isEmpty else { return nil }
        let all = ready.map(\.commands).joined()
        if let failure = connection.append(all) ?? connection.flush() {
            fail(ready.map(\.batch), with: .unavailable("\(endpoint): \(failure); the batch may or may not have run"))
            return failure
        }
        return readReplies(ready, on: connection)
    }

    /// Reads the replies of `ready`'s commands, written in this order, and completes each
    /// batch in turn.
    private func readReplies(_ ready: [(batch: Batch, commands: [RedisCommand])], on connection: HiredisConnection) -> HiredisFailure? {
        roundTripCount.add(1, ordering: .relaxed)
        commandCount.add(UInt64(ready.reduce(0) { $0 + $1.commands.count }), ordering: .relaxed)
        for (index, entry) in ready.enumerated() {
            var replies: [RedisValue] = []
            replies.reserveCapacity(entry.commands.count)
            for _ in entry.commands {
                switch connection.readReply() {
                case .success(let value):
                    replies.append(value)
                case .failure(let failure):
                    fail(ready[index...].map(\.batch), with: .unavailable("\(endpoint): \(failure); the batch may or may not have run"))
                    return failure
                }
            }
            entry.batch.completion(.success(replies))
        }
        return nil
    }

    /// A connection that was up has failed: batches queued meanwhile fail (they were not
    /// written), sends fail at once until the next connection, ``onDisconnected`` runs.
    private func connectionLost(_ failure: HiredisFailure) {
        let (orphans, handler) = state.withLock { state in
            state.connected = false
            connectedFlag.store(false, ordering: .releasing)
            state.unavailableReason = "the connection to \(endpoint) was lost (\(failure)); reconnecting"
            defer { state.queue = [] }
            return (state.queue, state.onDisconnected)
        }
        logger.warning("redis connection lost: \(failure); reconnecting")
        fail(orphans, with: .unavailable("the connection to \(endpoint) was lost (\(failure)); the batch was not sent"))
        handler?(.unavailable("the connection to \(endpoint) was lost: \(failure)"))
    }

    private func noteUnavailable(_ reason: String) {
        state.withLock { $0.unavailableReason = reason }
    }

    /// Waits `milliseconds` before the next attempt, or less when the client stops.
    private func pause(milliseconds: Int) {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        while !isStopping, ContinuousClock.now < deadline {
            _ = PollWait.wait(socket: -1, wake: wake, timeoutMs: PollWait.milliseconds(until: deadline))
        }
    }
}

// SPDX-License-Identifier: MIT

/// The connection of a ``RedisClient`` while its ``RedisClient/onConnected`` handler runs:
/// commands sent here run at once, before any queued batch, so the handler can load scripts
/// or resync state.
///
/// Valid only inside the handler and on its thread (it is not `Sendable`); afterwards every
/// ``send(_:)`` throws.
public final class RedisSetupConnection {
    private let connection: HiredisConnection
    /// The server the connection is to.
    public let endpoint: RedisEndpoint
    private var isOpen = true
    /// The failure that broke the connection during the handler, if any.
    private(set) var failure: HiredisFailure?

    init(connection: HiredisConnection, endpoint: RedisEndpoint) {
        self.connection = connection
        self.endpoint = endpoint
    }

    /// Sends `commands` in one write and returns their replies in order (an error reply is a
    /// ``RedisValue/error(_:)``).
    /// - Throws: ``RedisClientError/unavailable(_:)`` when the connection fails (the client
    ///   then drops it and reconnects, even if the handler goes on), or after the handler has
    ///   returned; ``RedisClientError/invalidCommand(_:)`` for a command that cannot be sent.
    public func send(_ commands: [RedisCommand]) throws(RedisClientError) -> [RedisValue] {
        guard isOpen else { throw .unavailable("the setup connection is valid only while onConnected runs") }
        if let failure { throw .unavailable("\(endpoint): \(failure)") }
        if let problem = commands.lazy.compactMap(\.problem).first { throw .invalidCommand(problem) }
        switch connection.roundTrip(commands) {
        case .success(let values):
            return values
        case .failure(let failure):
            self.failure = failure
            throw .unavailable("\(endpoint): \(failure)")
        }
    }

    /// The handler has returned.
    func close() {
        isOpen = false
    }
}

// SPDX-License-Identifier: MIT

/// What a batch's `prepare` built (``RedisClient/send(prepare:completion:)``), sorted the
/// same way whether the client's thread or a sender (``RedisClient/sendIfIdle(prepare:completion:)``)
/// built it: nothing to send (its completion gets no replies), a command that cannot be
/// sent (the batch fails, nothing of it is written), or commands to write. Pure.
enum PreparedCommands {
    case nothing
    case invalid(problem: String)
    case ready([RedisCommand])

    init(_ built: [RedisCommand]?) {
        guard let built, !built.isEmpty else {
            self = .nothing
            return
        }
        if let problem = built.lazy.compactMap(\.problem).first {
            self = .invalid(problem: problem)
        } else {
            self = .ready(built)
        }
    }

    /// The commands to write (empty unless ``ready(_:)``).
    var commands: [RedisCommand] {
        if case .ready(let commands) = self { commands } else { [] }
    }
}

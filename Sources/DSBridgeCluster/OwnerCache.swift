// SPDX-License-Identifier: MIT
import Synchronization

/// Which node owned a session when this node last asked Redis: a hint that saves a round
/// trip on calls into other nodes' sessions. Bounded: full, it starts again empty.
final class OwnerCache: Sendable {
    static let capacity = 10_000
    private let owners = Mutex<[String: String]>([:])

    func owner(of session: String) -> String? {
        owners.withLock { $0[session] }
    }

    func remember(_ owner: String, of session: String) {
        owners.withLock { o in
            if o.count >= Self.capacity { o.removeAll(keepingCapacity: true) }
            o[session] = owner
        }
    }

    func forget(_ session: String) {
        owners.withLock { _ = $0.removeValue(forKey: session) }
    }
}

// SPDX-License-Identifier: MIT
import DSBridgeRedis

/// Why cluster mode could not be set up.
public enum ClusterSetupError: Error, Sendable, CustomStringConvertible {
    case invalidRedisURL(RedisEndpointError)
    case invalidNodeID(String)

    public var description: String {
        switch self {
        case .invalidRedisURL(let e): return e.description
        case .invalidNodeID(let id):
            return "node id '\(id)' must be non-empty and contain no '|', '#', space or line break (it names the node in Redis keys and run-table entries)"
        }
    }
}

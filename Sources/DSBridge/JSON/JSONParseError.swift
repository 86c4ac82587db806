// SPDX-License-Identifier: MIT

/// Why a JSON text was refused.
public enum JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not JSON; `offset` is the byte where reading stopped.
    case invalid(offset: Int, reason: String)
    /// Arrays and objects nest deeper than the allowed number of levels.
    case tooDeep(limit: Int)

    public var description: String {
        switch self {
        case .invalid(let offset, let reason): return "invalid JSON at byte \(offset): \(reason)"
        case .tooDeep(let limit): return "JSON nested deeper than \(limit) levels"
        }
    }
}

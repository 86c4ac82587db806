// SPDX-License-Identifier: MIT

/// Why a bench run could not start or could not produce a result.
enum BenchError: Error, CustomStringConvertible {
    /// A command-line value is out of range or malformed.
    case invalidOption(String)
    /// Not every session opened within the time allowed.
    case sessionsNotReady(ready: Int, wanted: Int, seconds: Double)
    /// No operation completed during the measurement.
    case nothingCompleted(scenario: String)

    var description: String {
        switch self {
        case .invalidOption(let text):
            return "invalid option: \(text)"
        case .sessionsNotReady(let ready, let wanted, let seconds):
            return "only \(ready) of \(wanted) sessions opened within \(Int(seconds)) s: is the server running, and are the fd limits (ulimit -n) high enough?"
        case .nothingCompleted(let scenario):
            return "scenario \(scenario): no operation completed during the measurement"
        }
    }
}

// SPDX-License-Identifier: MIT

/// The values a numeric setting accepts. Upper bounds keep every value inside the daemon's
/// arithmetic (2 × `heartbeat-ms`, deadlines in ms, buffer sizes) and a thread's stack (JSON
/// nested `max-depth` levels is parsed and written recursively); none is a sensible setting.
public struct IntegerBounds: Sendable, Equatable {
    /// The smallest accepted value (0 or 1 for counts and durations, more for a range).
    public let minimum: Int
    /// The largest accepted value.
    public let maximum: Int
    /// Why ``maximum`` is the bound (`"one day"`); `nil` for a plain range such as a port's,
    /// whose message is then "must be from A to B".
    public let reason: String?

    /// 1 up to `maximum`.
    public static func positive(upTo maximum: Int, _ reason: String) -> IntegerBounds {
        IntegerBounds(minimum: 1, maximum: maximum, reason: reason)
    }

    /// 0 up to `maximum`.
    public static func zeroOrMore(upTo maximum: Int, _ reason: String) -> IntegerBounds {
        IntegerBounds(minimum: 0, maximum: maximum, reason: reason)
    }

    /// Exactly the values of `range`.
    public static func range(_ range: ClosedRange<Int>) -> IntegerBounds {
        IntegerBounds(minimum: range.lowerBound, maximum: range.upperBound, reason: nil)
    }

    /// A duration in milliseconds: 1 up to one day.
    public static let milliseconds = positive(upTo: 86_400_000, "one day")
    /// A duration in milliseconds where 0 means "at once": 0 up to one day.
    public static let millisecondsOrZero = zeroOrMore(upTo: 86_400_000, "one day")
    /// A TCP port; 0 picks a free one.
    public static let port = range(0...65535)

    /// Throws unless `value` is accepted; the message names `flag` and the rule broken.
    public func check(_ value: Int, flag: String) throws(SettingsError) {
        guard let reason else {
            guard (minimum...maximum).contains(value) else {
                throw SettingsError(description: "\(flag) must be from \(minimum) to \(maximum), got \(value)")
            }
            return
        }
        guard value >= minimum else {
            let rule = minimum == 0 ? "0 or more" : minimum == 1 ? "a positive integer" : "at least \(minimum)"
            throw SettingsError(description: "\(flag) must be \(rule), got \(value)")
        }
        guard value <= maximum else {
            throw SettingsError(description: "\(flag) must be at most \(maximum) (\(reason)), got \(value)")
        }
    }

    /// The rule in words, for help texts: `1 to 1000 (deeper JSON would exhaust a thread's stack)`.
    public var description: String {
        let span = "\(minimum) to \(maximum)"
        return reason.map { "\(span) (\($0))" } ?? span
    }
}

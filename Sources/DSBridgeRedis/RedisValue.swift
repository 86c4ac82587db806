// SPDX-License-Identifier: MIT

/// One reply from Redis (RESP2): what a command answered, an error reply included.
///
/// An error reply (`-ERR ...`, `-NOSCRIPT ...`) is a value, ``error(_:)``, not a thrown
/// error: in a batch, the other commands' replies are still there.
public enum RedisValue: Sendable, Hashable, CustomStringConvertible {
    /// A bulk string: binary-safe bytes.
    case string([UInt8])
    /// An integer reply (`:n`).
    case integer(Int64)
    /// An array reply (`*n`), its elements in order.
    case array([RedisValue])
    /// A null bulk string or null array (`$-1`, `*-1`): e.g. `GET` of a missing key.
    case null
    /// A status reply (`+OK`, `+PONG`).
    case status(String)
    /// An error reply (`-ERR ...`), with its code first (`ERR`, `WRONGTYPE`, `NOSCRIPT`).
    case error(String)

    /// A bulk string's bytes decoded as UTF-8, or a status' text; `nil` for other values and
    /// for bytes that are not valid UTF-8 (use ``bytesValue`` for binary data).
    public var stringValue: String? {
        switch self {
        case .string(let bytes): return String(validating: bytes, as: UTF8.self)
        case .status(let text): return text
        default: return nil
        }
    }

    /// A bulk string's bytes; `nil` for other values.
    public var bytesValue: [UInt8]? {
        if case .string(let bytes) = self { return bytes }
        return nil
    }

    /// An integer reply's value; `nil` for other values (a bulk string holding digits too:
    /// `GET` of a counter answers a string).
    public var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// An array reply's elements; `nil` for other values (a null array included).
    public var arrayValue: [RedisValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// An error reply's message; `nil` for other values.
    public var errorMessage: String? {
        if case .error(let message) = self { return message }
        return nil
    }

    public var description: String {
        switch self {
        case .string(let bytes): return String(validating: bytes, as: UTF8.self).map { "\"\($0)\"" } ?? "<\(bytes.count) bytes>"
        case .integer(let value): return "(integer) \(value)"
        case .array(let elements): return "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .null: return "(nil)"
        case .status(let text): return text
        case .error(let message): return "(error) \(message)"
        }
    }
}

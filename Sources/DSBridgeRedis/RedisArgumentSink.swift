// SPDX-License-Identifier: MIT

/// Where a long command's arguments are written one by one: a list of byte strings
/// (`[[UInt8]]`, easy to read back in tests) or RESP straight away (``RESPCommandWriter``,
/// no array per argument).
public protocol RedisArgumentSink {
    /// Appends an argument of these exact bytes.
    mutating func appendArgument(_ bytes: [UInt8])
    /// Appends a string's UTF-8 bytes.
    mutating func appendArgument(_ string: String)
    /// Appends `n` in decimal.
    mutating func appendArgument(decimal n: Int64)
}

extension Array: RedisArgumentSink where Element == [UInt8] {
    public mutating func appendArgument(_ bytes: [UInt8]) { append(bytes) }
    public mutating func appendArgument(_ string: String) { append([UInt8](string.utf8)) }
    public mutating func appendArgument(decimal n: Int64) { append([UInt8](String(n).utf8)) }
}

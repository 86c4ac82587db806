// SPDX-License-Identifier: MIT

/// The request target of an HTTP/1 request line as the client sent it (nothing
/// normalised: libwebsockets, which served HTTP here before, percent-decoded the path,
/// collapsed `.` and `..` segments and dropped a request with `%00` without an answer).
/// PROTOCOL.md 1.2 judges the path as sent, decoded once, and redirects `/dir` to the path
/// as sent plus `/`.
/// Pure value type.
struct RawRequestTarget: Sendable, Equatable {
    /// The method token (`GET`, `HEAD`, ...).
    let method: String
    /// The path as sent (before `?`): a slice of the request line (no copy).
    let path: ArraySlice<UInt8>
    /// The query as sent (after `?`), if any.
    let query: ArraySlice<UInt8>?

    /// Parses `METHOD SP TARGET SP VERSION` (the line without its CR LF); `nil` for
    /// anything else (the head is refused, 400).
    init?(requestLine: ArraySlice<UInt8>) {
        guard let spaces = Self.spaces(in: requestLine) else { return nil }
        let target = requestLine[(spaces.first + 1)..<spaces.second]
        guard target.first == UInt8(ascii: "/") else { return nil }
        method = String(decoding: requestLine[..<spaces.first], as: UTF8.self)
        if let mark = target.firstIndex(of: UInt8(ascii: "?")) {
            path = target[..<mark]
            query = target[target.index(after: mark)...]
        } else {
            path = target
            query = nil
        }
    }

    /// Where the two spaces of a request line are; `nil` unless it has exactly two.
    static func spaces(in requestLine: ArraySlice<UInt8>) -> (first: Int, second: Int)? {
        guard let first = requestLine.firstIndex(of: UInt8(ascii: " ")) else { return nil }
        let rest = requestLine[(first + 1)...]
        guard let second = rest.firstIndex(of: UInt8(ascii: " ")),
            !requestLine[(second + 1)...].contains(UInt8(ascii: " "))
        else { return nil }
        return (first, second)
    }

    /// The path percent-decoded once (an invalid escape stays as it is); the path itself
    /// when it has no escape.
    var decodedPath: ArraySlice<UInt8> {
        guard path.contains(UInt8(ascii: "%")) else { return path }
        var out: [UInt8] = []
        out.reserveCapacity(path.count)
        var i = path.startIndex
        while i < path.endIndex {
            if path[i] == UInt8(ascii: "%"), i + 2 < path.endIndex, let high = Self.hex(path[i + 1]), let low = Self.hex(path[i + 2]) {
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(path[i])
                i += 1
            }
        }
        return out[...]
    }

    /// Whether PROTOCOL.md 1.2 answers 404 to this static `GET`/`HEAD` whatever the web root
    /// holds: once decoded, the path has a `..` segment, a backslash or a NUL byte.
    var isRefusedStaticPath: Bool {
        guard method == "GET" || method == "HEAD" else { return false }
        let decoded = decodedPath
        if decoded.contains(0) || decoded.contains(UInt8(ascii: "\\")) { return true }
        return decoded.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains { Array($0) == [46, 46] }
    }

    /// The `Location` of the `/dir` → `/dir/` redirect: the path as sent plus `/`, the
    /// query byte for byte. Leading slashes are the one exception, kept to one: `//host/`
    /// in a `Location` would send the browser to another host (an open redirect).
    var directoryLocation: String {
        var sent = path[...]
        while sent.count > 1, sent.first == UInt8(ascii: "/"), sent.dropFirst().first == UInt8(ascii: "/") { sent = sent.dropFirst() }
        var location = Array(sent) + [UInt8(ascii: "/")]
        if let query { location += [UInt8(ascii: "?")] + query }
        return String(decoding: location, as: UTF8.self)
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

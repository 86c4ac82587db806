// SPDX-License-Identifier: MIT

/// The `Location` of a `/dir` → `/dir/` redirect (PROTOCOL.md 1.2), built from what
/// libwebsockets left of the request target: the path and the query arguments, both
/// percent-decoded. Everything outside RFC 3986's unreserved characters (and the path's
/// `/`, each argument's `=`) is percent-encoded again, so the header never carries a raw
/// space, control byte or CR LF, and an encoded query such as `a=1&b=%20c` comes back byte
/// for byte. (Escapes of unreserved characters, like `%73`, come back decoded: lws does
/// not keep the raw target.)
enum RedirectLocation {
    /// `path` + `/` + `?` + the arguments joined with `&` (no `?` without arguments).
    static func location(path: String, arguments: [String]) -> String {
        var location = encode(path, keeping: "/") + "/"
        if !arguments.isEmpty {
            location +=
                "?"
                + arguments.map { argument in
                    guard let equals = argument.firstIndex(of: "=") else { return encode(argument, keeping: "") }
                    return encode(String(argument[..<equals]), keeping: "") + "=" + encode(String(argument[argument.index(after: equals)...]), keeping: "")
                }.joined(separator: "&")
        }
        return location
    }

    private static func encode(_ text: String, keeping extra: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        let keep = Set(extra.utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                if keep.contains(byte) {
                    out.append(byte)
                } else {
                    out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

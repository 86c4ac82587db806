// SPDX-License-Identifier: MIT

/// The `Location` of a `/dir` → `/dir/` redirect (PROTOCOL.md 1.2) made from a path
/// already percent-decoded, when the target as sent is not known (``StaticFiles`` used on
/// its own; the server uses ``RawRequestTarget/directoryLocation``). Everything outside
/// RFC 3986's unreserved characters and `/` is percent-encoded again, so the header never
/// carries a raw space, control byte or CR LF.
enum RedirectLocation {
    /// `path` + `/`, encoded.
    static func location(path: String) -> String {
        encode(path, keeping: "/") + "/"
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

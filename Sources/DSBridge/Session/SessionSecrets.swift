// SPDX-License-Identifier: MIT

/// Random identifiers for sessions, from the system's cryptographic generator.
enum SessionSecrets {
    /// A resume token: 144 random bits, URL-safe base64 (24 characters).
    static func token() -> String {
        base64URL(randomBytes(18))
    }

    /// A public session id: 64 random bits in hex.
    static func publicID() -> String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in randomBytes(8) {
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func randomBytes(_ n: Int) -> [UInt8] {
        var g = SystemRandomNumberGenerator()
        return (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        var i = 0
        while i + 3 <= bytes.count {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out.append(alphabet[Int(v >> 18 & 63)])
            out.append(alphabet[Int(v >> 12 & 63)])
            out.append(alphabet[Int(v >> 6 & 63)])
            out.append(alphabet[Int(v & 63)])
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}

// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridgeRedis

@Suite("SHA-1 of script sources")
struct SHA1Tests {
    @Test(
        "the FIPS 180 and padding-boundary vectors hash to their known digests",
        arguments: [
            ([UInt8](), "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            (Array("abc".utf8), "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8), "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
            (Array(repeating: UInt8(ascii: "x"), count: 55), "cef734ba81a024479e09eb5a75b6ddae62e6abf1"),
            (Array(repeating: UInt8(ascii: "x"), count: 56), "901305367c259952f4e7af8323f480d59f81335b"),
            (Array(repeating: UInt8(ascii: "x"), count: 63), "0ddc4e0cccd9a12850deb5abb0853a4425559fec"),
            (Array(repeating: UInt8(ascii: "x"), count: 64), "bb2fa3ee7afb9f54c6dfb5d021f14b1ffe40c163"),
            (Array(repeating: UInt8(ascii: "x"), count: 65), "78c741ddc482e4cdf8c474a0876347a0905b6233"),
            (Array(repeating: UInt8(ascii: "x"), count: 119), "4300320394f7ee239bcdce7d3b8bcee173a0cd5c"),
            (Array(repeating: UInt8(ascii: "x"), count: 120), "ceb2821639c4b6dcb10bce0e522ca2e608ce056d"),
            ((0..<768).map { UInt8(truncatingIfNeeded: $0) }, "ac2a264c8ec1f4232a40854e8239bc3a697ab1d2"),
        ])
    func knownVectors(message: [UInt8], digest: String) {
        #expect(SHA1.hex(message) == digest)
    }

    @Test("a million 'a' hash to the FIPS 180 digest")
    func millionA() {
        #expect(SHA1.hex(repeatElement(UInt8(ascii: "a"), count: 1_000_000)) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }
}

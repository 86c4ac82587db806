import Testing

// SPDX-License-Identifier: MIT
@testable import DSBridge

/// The eight-bytes-at-a-time search must stop exactly where a byte-by-byte one stops.
@Suite("JSON string runs: the word-at-a-time search agrees with a byte-by-byte one")
struct JSONStringRunTests {
    private func naive(_ bytes: [UInt8], from start: Int) -> (Int, Bool) {
        var i = start
        var nonASCII = false
        while i < bytes.count {
            let c = bytes[i]
            if c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { break }
            if c >= 0x80 { nonASCII = true }
            i += 1
        }
        return (i, nonASCII)
    }

    @Test("every byte value at every position of a word, from every start")
    func everyByteEverywhere() {
        for special in 0...255 {
            for position in 0..<19 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 19)
                bytes[position] = UInt8(special)
                for start in 0...bytes.count {
                    let got = bytes.withUnsafeBufferPointer { JSONStringRun.plainEnd($0, from: start) }
                    let want = naive(bytes, from: start)
                    #expect(got.end == want.0 && got.sawNonASCII == want.1, "byte \(special) at \(position), from \(start)")
                }
            }
        }
    }

    @Test("random buffers")
    func randomBuffers() {
        var state: UInt64 = 7
        for _ in 0..<2_000 {
            let count = Int(state % 40)
            var bytes: [UInt8] = []
            for _ in 0..<count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                // Mostly plain text, sometimes anything.
                let r = UInt8(truncatingIfNeeded: state >> 33)
                bytes.append(r % 8 == 0 ? UInt8(truncatingIfNeeded: state >> 41) : UInt8(ascii: "a") + r % 26)
            }
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let start = count == 0 ? 0 : Int(state >> 40) % (count + 1)
            let got = bytes.withUnsafeBufferPointer { JSONStringRun.plainEnd($0, from: start) }
            let want = naive(bytes, from: start)
            #expect(got.end == want.0 && got.sawNonASCII == want.1, "\(bytes) from \(start)")
        }
    }
}

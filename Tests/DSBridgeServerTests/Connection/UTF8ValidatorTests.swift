// SPDX-License-Identifier: MIT
import TestSupport
import Testing

@testable import DSBridgeServer

/// The incremental UTF-8 check, against Swift's own decoder.
@Suite("UTF8Validator: RFC 3629 UTF-8, across buffers")
struct UTF8ValidatorTests {
    @Test("the classic invalid sequences are refused, and a split euro sign is valid but incomplete")
    func namedCases() {
        #expect(check([0xED, 0xA0, 0x80]) == .invalid)  // surrogate U+D800
        #expect(check([0xED, 0xBF, 0xBF]) == .invalid)  // surrogate U+DFFF
        #expect(check([0xC0, 0xAF]) == .invalid)  // overlong "/"
        #expect(check([0xE0, 0x80, 0xAF]) == .invalid)  // overlong "/", 3 bytes
        #expect(check([0xF0, 0x80, 0x80, 0xAF]) == .invalid)  // overlong "/", 4 bytes
        #expect(check([0xF8, 0x88, 0x80, 0x80, 0x80]) == .invalid)  // 5-byte form
        #expect(check([0xF4, 0x90, 0x80, 0x80]) == .invalid)  // above U+10FFFF
        #expect(check([0x80]) == .invalid)  // stray continuation
        #expect(check([0xFF]) == .invalid)
        #expect(check([0xE2, 0x82]) == .open)
        #expect(check([0xE2, 0x82, 0xAC]) == .complete)
        #expect(check([0xED, 0x9F, 0xBF]) == .complete)  // U+D7FF
        #expect(check([0xEE, 0x80, 0x80]) == .complete)  // U+E000
        #expect(check([0xF4, 0x8F, 0xBF, 0xBF]) == .complete)  // U+10FFFF
        #expect(check([0xF0, 0x90, 0x80, 0x80]) == .complete)  // U+10000
        #expect(check([]) == .complete)
    }

    @Test("an invalid byte after a long ASCII run is found, wherever it falls in a word")
    func invalidAfterASCII() {
        for prefix in 0..<40 {
            let ascii = [UInt8](repeating: 0x61, count: prefix)
            #expect(check(ascii + [0xFF] + ascii) == .invalid)
            #expect(check(ascii + [0xC3, 0xA9] + ascii) == .complete)
            #expect(check(ascii + [0xC3]) == .open)
        }
    }

    @Test("once failed, the validator stays failed until reset")
    func staysFailed() {
        var validator = UTF8Validator()
        #expect(!validate(&validator, [0x61, 0xC0]))
        #expect(!validate(&validator, [0x61, 0x62]))
        #expect(!validator.isComplete)
        validator.reset()
        #expect(validator == UTF8Validator())
        #expect(validate(&validator, [0x61, 0x62]))
        #expect(validator.isComplete)
    }

    @Test("every code point's encoding is valid and complete; every surrogate's is invalid")
    func everyScalar() {
        var validator = UTF8Validator()
        var bytes: [UInt8] = []
        for value in UInt32(0)...0x10_FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            bytes.removeAll(keepingCapacity: true)
            bytes.append(contentsOf: String(Character(scalar)).utf8)
            validator.reset()
            if !validate(&validator, bytes) || !validator.isComplete {
                Issue.record("U+\(String(value, radix: 16)) refused")
                return
            }
        }
        for value in UInt32(0xD800)...0xDFFF {
            let bytes = [UInt8(0xE0 | value >> 12), UInt8(0x80 | (value >> 6) & 0x3F), UInt8(0x80 | value & 0x3F)]
            validator.reset()
            #expect(!validate(&validator, bytes))
        }
    }

    @Test("every 2-byte string, and 3- and 4-byte strings from every multi-byte lead with edge-case bytes after it, are judged as Swift judges them")
    func shortStringsAgreeWithSwift() {
        let edges: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xF0, 0xFF]
        var mismatches: [[UInt8]] = []
        for first in UInt8(0)...0xFF {
            for second in UInt8(0)...0xFF {
                let pair = [first, second]
                if check(pair) != reference(pair) { mismatches.append(pair) }
                guard first >= 0xE0 else { continue }
                for third in edges {
                    let triple = [first, second, third]
                    if check(triple) != reference(triple) { mismatches.append(triple) }
                    guard (0xF0...0xF5).contains(first), (0x7F...0xC0).contains(second) else { continue }
                    for fourth: UInt8 in [0x41, 0x80, 0xBF, 0xC0] {
                        let quad = [first, second, third, fourth]
                        if check(quad) != reference(quad) { mismatches.append(quad) }
                    }
                }
            }
        }
        #expect(mismatches == [])
    }

    @Test("thousands of random byte strings are judged as Swift judges them, whole or validated in 2-3 pieces")
    func randomStringsAgreeWithSwift() {
        var random = SplitMix(seed: 0x5EED_0F_0707)
        for round in 0..<6_000 {
            let bytes = randomBytes(&random)
            let expected = reference(bytes)
            let whole = check(bytes)
            #expect(whole == expected, "round \(round): \(bytes)")
            var cuts = [Int(random.next() % UInt64(bytes.count + 1)), Int(random.next() % UInt64(bytes.count + 1))].sorted()
            if random.next() % 2 == 0 { cuts[1] = cuts[0] }
            let pieces = [Array(bytes[..<cuts[0]]), Array(bytes[cuts[0]..<cuts[1]]), Array(bytes[cuts[1]...])]
            #expect(check(pieces: pieces) == expected, "round \(round): \(pieces)")
        }
    }

    @Test("the byte-at-a-time result agrees with the first invalid byte Swift's decoder finds")
    func failsAtTheFirstInvalidByte() {
        var random = SplitMix(seed: 42)
        for _ in 0..<1_000 {
            let bytes = randomBytes(&random)
            var validator = UTF8Validator()
            var firstRefused: Int?
            for (index, byte) in bytes.enumerated() where !validate(&validator, [byte]) {
                firstRefused = index
                break
            }
            // The longest prefix that is still valid so far is what Swift accepts with some completion.
            let longestValid = (0...bytes.count).last { reference(Array(bytes[..<$0])) != .invalid } ?? 0
            #expect(firstRefused == (longestValid == bytes.count ? nil : longestValid), "\(bytes)")
        }
    }
}

/// What a validator makes of a byte string.
private enum Verdict: Equatable {
    /// Valid and ends on a character boundary.
    case complete
    /// Valid so far, but ends inside a character.
    case open
    /// Not UTF-8.
    case invalid
}

/// Validates `bytes` on `validator`.
private func validate(_ validator: inout UTF8Validator, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { validator.validate($0) }
}

/// The validator's verdict on `pieces`, validated one after the other.
private func check(pieces: [[UInt8]]) -> Verdict {
    var validator = UTF8Validator()
    for piece in pieces where !validate(&validator, piece) { return .invalid }
    return validator.isComplete ? .complete : .open
}

/// The validator's verdict on `bytes`, validated in one piece.
private func check(_ bytes: [UInt8]) -> Verdict {
    check(pieces: [bytes])
}

/// Swift's verdict: complete when it decodes `bytes` without repair; open when some 1-3
/// continuation bytes would make it so (the first one from 80, 90 or A0 covers every lead's range;
/// only worth trying when one of the last 3 bytes could lead a multi-byte character).
private func reference(_ bytes: [UInt8]) -> Verdict {
    if swiftAccepts(bytes) { return .complete }
    guard bytes.suffix(3).contains(where: { (0xC2...0xF4).contains($0) }) else { return .invalid }
    for first: UInt8 in [0x80, 0x90, 0xA0] {
        for extra in 0..<3 where swiftAccepts(bytes + [first] + [UInt8](repeating: 0x80, count: extra)) {
            return .open
        }
    }
    return .invalid
}

/// Swift's decoder takes `bytes` as they are.
private func swiftAccepts(_ bytes: [UInt8]) -> Bool {
    String(validating: bytes, as: UTF8.self) != nil
}

/// Up to 40 random bytes: mostly ASCII and valid characters of every length, some invalid
/// bytes, some truncated characters.
private func randomBytes(_ random: inout SplitMix) -> [UInt8] {
    var bytes: [UInt8] = []
    let parts = Int(random.next() % 12)
    for _ in 0..<parts {
        switch random.next() % 10 {
        case 0..<4:
            bytes += (0..<Int(random.next() % 12)).map { _ in UInt8(random.next() % 0x80) }
        case 4..<7:
            var value = UInt32(random.next() % 0x11_0000)
            if (0xD800...0xDFFF).contains(value) { value = 0xFFFD }
            if let scalar = Unicode.Scalar(value) { bytes += Array(String(Character(scalar)).utf8) }
        case 7:
            bytes.append(UInt8(truncatingIfNeeded: random.next()))
        case 8:
            let character: [UInt8] = [[0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80]][Int(random.next() % 3)]
            bytes += character.prefix(Int(random.next() % UInt64(character.count)))
        default:
            let edges: [UInt8] = [0xC0, 0xC1, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0x80, 0x9F, 0xA0, 0xBF]
            bytes.append(edges[Int(random.next() % UInt64(edges.count))])
        }
    }
    return bytes
}

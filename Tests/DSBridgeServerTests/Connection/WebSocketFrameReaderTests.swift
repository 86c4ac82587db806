// SPDX-License-Identifier: MIT
import TestSupport
import Testing

@testable import DSBridgeServer

/// Reading a client's frames: what is delivered, and what is refused with which code.
@Suite("WebSocketFrameReader: a client's frames, from bytes in any split")
struct WebSocketFrameReaderTests {
    @Test("a single masked text frame is delivered unmasked, and nothing stays buffered")
    func singleTextFrame() {
        var reader = WebSocketFrameReader(maxMessageBytes: 1_000)
        let outcome = feed(&reader, [clientFrame(.text, Array("Hello, wörld".utf8))])
        #expect(outcome == Outcome([.text(Array("Hello, wörld".utf8))]))
        #expect(reader.bufferedBytes == 0)
    }

    @Test("several frames in one buffer are delivered in order")
    func severalFramesInOneBuffer() {
        let bytes =
            clientFrame(.text, Array("one".utf8)) + clientFrame(.ping, [1, 2, 3]) + clientFrame(.text, [])
            + clientFrame(.pong, [9]) + clientFrame(.text, Array("two".utf8), mask: [0, 0, 0, 0])
        #expect(read([bytes]) == Outcome([.text(Array("one".utf8)), .ping([1, 2, 3]), .text([]), .pong, .text(Array("two".utf8))]))
    }

    @Test("a two-frame buffer split at every point, or fed byte by byte, gives the same inputs")
    func everySplitPoint() {
        let text = Array(String(repeating: "añ€😀-", count: 20).utf8)  // 200 bytes: a 16-bit length
        let bytes = clientFrame(.text, text, mask: [0xA1, 0xB2, 0xC3, 0xD4]) + clientFrame(.ping, Array("are you there".utf8))
        let expected = Outcome([.text(text), .ping(Array("are you there".utf8))])
        #expect(read([bytes]) == expected)
        for split in 0...bytes.count {
            #expect(read([Array(bytes[..<split]), Array(bytes[split...])]) == expected, "split at \(split)")
        }
        #expect(read(bytes.map { [$0] }) == expected)
    }

    @Test("the mask phase carries over when a payload is split at any offset")
    func maskPhaseAcrossReads() {
        let payload = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
        let bytes = clientFrame(.text, payload, mask: [0x01, 0x80, 0x7F, 0xFE])
        for first in 6...bytes.count {
            for second in first...min(bytes.count, first + 13) {
                let pieces = [Array(bytes[..<first]), Array(bytes[first..<second]), Array(bytes[second...])]
                #expect(read(pieces) == Outcome([.text(payload)]), "split at \(first), \(second)")
            }
        }
    }

    @Test("a partial frame is held (bufferedBytes), then released once delivered")
    func bufferedBytes() {
        var reader = WebSocketFrameReader(maxMessageBytes: 1_000)
        let bytes = clientFrame(.text, Array("abcdefgh".utf8))
        #expect(feed(&reader, [Array(bytes[..<4])]) == Outcome([]))
        #expect(reader.bufferedBytes == 4)
        #expect(feed(&reader, [Array(bytes[4..<10])]) == Outcome([]))
        #expect(reader.bufferedBytes == 4)  // the header is in; 4 payload bytes held
        #expect(feed(&reader, [Array(bytes[10...])]) == Outcome([.text(Array("abcdefgh".utf8))]))
        #expect(reader.bufferedBytes == 0)
    }

    @Test("a fragmented message is reassembled, with a ping between its fragments delivered at once")
    func fragmentedWithPing() {
        var reader = WebSocketFrameReader(maxMessageBytes: 1_000)
        #expect(feed(&reader, [clientFrame(.text, Array("Hel".utf8), fin: false)]) == Outcome([]))
        #expect(reader.bufferedBytes == 3)
        #expect(feed(&reader, [clientFrame(.ping, Array("p".utf8))]) == Outcome([.ping(Array("p".utf8))]))
        let rest = clientFrame(.continuation, Array("lo ".utf8), fin: false) + clientFrame(.pong, []) + clientFrame(.continuation, [], fin: false)
        #expect(feed(&reader, [rest]) == Outcome([.pong]))
        #expect(feed(&reader, [clientFrame(.continuation, Array("world".utf8))]) == Outcome([.text(Array("Hello world".utf8))]))
        #expect(reader.bufferedBytes == 0)
        #expect(feed(&reader, [clientFrame(.text, Array("next".utf8))]) == Outcome([.text(Array("next".utf8))]))
    }

    @Test("16-bit and 64-bit lengths are read, minimal or not")
    func extendedLengths() {
        let short = Array("short".utf8)
        let medium = [UInt8](repeating: 0x6D, count: 300)
        let long = [UInt8](repeating: 0x6C, count: 70_000)
        #expect(read([clientFrame(.text, medium)], max: 100_000) == Outcome([.text(medium)]))
        #expect(read([clientFrame(.text, long)], max: 100_000) == Outcome([.text(long)]))
        #expect(read([clientFrame(.text, short, length: .sixteen)]) == Outcome([.text(short)]))
        #expect(read([clientFrame(.text, short, length: .sixtyFour)]) == Outcome([.text(short)]))
        #expect(read([clientFrame(.text, medium, length: .sixtyFour)]) == Outcome([.text(medium)]))
        #expect(read([clientFrame(.ping, short, length: .sixteen)]) == Outcome([.ping(short)]))
    }

    @Test("RSV bits, reserved opcodes and unmasked frames are protocol errors (1002)")
    func malformedFrames() {
        for rsv: UInt8 in [1, 2, 4, 7] {
            #expect(read([clientFrame(.text, [0x61], rsv: rsv)]).failure == WebSocketReadFailure(code: 1002, reason: "reserved bits set"))
        }
        for opcode: UInt8 in [3, 4, 5, 6, 7, 11, 12, 13, 14, 15] {
            #expect(read([clientFrame(opcode: opcode, [0x61])]).failure?.code == 1002, "opcode \(opcode)")
        }
        let unmasked = WebSocketReadFailure(code: 1002, reason: "client frames must be masked")
        #expect(read([clientFrame(.text, [0x61], mask: nil)]).failure == unmasked)
        #expect(read([clientFrame(.ping, [], mask: nil)]).failure == unmasked)
        #expect(read([header(.text, declaredLength: 1 << 63, length: .sixtyFour)]).failure?.code == 1002)
        #expect(read([header(.text, declaredLength: UInt64.max, length: .sixtyFour)]).failure?.code == 1002)
    }

    @Test("control frames longer than 125 bytes or without FIN are protocol errors (1002)")
    func badControlFrames() {
        #expect(read([clientFrame(.ping, [UInt8](repeating: 0, count: 125))]) == Outcome([.ping([UInt8](repeating: 0, count: 125))]))
        #expect(read([clientFrame(.ping, [UInt8](repeating: 0, count: 126))]).failure?.code == 1002)
        #expect(read([header(.pong, declaredLength: 200, length: .sixtyFour)]).failure?.code == 1002)
        #expect(read([clientFrame(.ping, [], fin: false)]).failure?.code == 1002)
        #expect(read([clientFrame(.close, [0x03, 0xE8], fin: false)]).failure?.code == 1002)
        #expect(read([clientFrame(.pong, [], fin: false)]).failure?.code == 1002)
    }

    @Test("a continuation with no message, or a new message inside a fragmented one, is a protocol error (1002)")
    func badFragmentation() {
        #expect(read([clientFrame(.continuation, [0x61])]).failure?.code == 1002)
        #expect(read([clientFrame(.text, [0x61]) + clientFrame(.continuation, [0x62])]).failure?.code == 1002)
        let started = clientFrame(.text, [0x61], fin: false)
        #expect(read([started + clientFrame(.text, [0x62])]).failure?.code == 1002)
        #expect(read([started + clientFrame(.binary, [0x62])]).failure?.code == 1002)
    }

    @Test("a binary frame fails with 1003 as soon as its header is in")
    func binaryRefused() {
        let binary = WebSocketReadFailure(code: 1003, reason: "binary frames are not accepted")
        #expect(read([header(.binary, declaredLength: 50)]).failure == binary)
        #expect(read([header(.binary, declaredLength: 1 << 40, length: .sixtyFour)]).failure == binary)
        #expect(read([clientFrame(.binary, [], fin: false)]).failure == binary)
    }

    @Test("the checks run in order: RSV, opcode, mask, length, control rules, fragmentation, binary, size")
    func orderOfChecks() {
        #expect(read([clientFrame(opcode: 3, [], rsv: 1)]).failure?.reason == "reserved bits set")
        #expect(read([clientFrame(opcode: 3, [], mask: nil)]).failure?.reason == "reserved opcode")
        #expect(read([clientFrame(.binary, [], mask: nil)]).failure?.reason == "client frames must be masked")
        #expect(read([header(.binary, declaredLength: 1 << 63, length: .sixtyFour)]).failure?.reason == "frame length out of range")
        #expect(read([header(.ping, fin: false, declaredLength: 200)]).failure?.reason == "fragmented control frame")
        #expect(read([header(.continuation, declaredLength: 1 << 40, length: .sixtyFour)]).failure?.reason == "continuation frame without a message")
        let started = clientFrame(.text, [], fin: false)
        #expect(read([started + header(.binary, declaredLength: 1 << 40, length: .sixtyFour)]).failure?.code == 1002)
        #expect(read([header(.binary, declaredLength: 1 << 40, length: .sixtyFour)], max: 10).failure?.code == 1003)
    }

    @Test("a message of exactly the limit is accepted; one byte more fails with 1009 at the header, whole or fragmented")
    func sizeLimit() {
        let exact = [UInt8](repeating: 0x78, count: 100)
        #expect(read([clientFrame(.text, exact)], max: 100) == Outcome([.text(exact)]))
        let tooBig = WebSocketReadFailure(code: 1009, reason: "message too big")
        #expect(read([header(.text, declaredLength: 101)], max: 100).failure == tooBig)
        let first = clientFrame(.text, [UInt8](repeating: 0x78, count: 60), fin: false)
        let between = clientFrame(.ping, [UInt8](repeating: 0x70, count: 100))  // control frames do not count
        let rest = clientFrame(.continuation, [UInt8](repeating: 0x78, count: 40))
        #expect(read([first + between + rest], max: 100) == Outcome([.ping([UInt8](repeating: 0x70, count: 100)), .text(exact)]))
        let outcome = read([first + between + header(.continuation, declaredLength: 41)], max: 100)
        #expect(outcome.inputs == [.ping([UInt8](repeating: 0x70, count: 100))])
        #expect(outcome.failure == tooBig)
        #expect(
            read([clientFrame(.text, [], fin: false), clientFrame(.continuation, [], fin: false), clientFrame(.continuation, [])], max: 0)
                == Outcome([.text([])]))
    }

    @Test("a frame declaring 1 TiB fails with 1009 with only its header fed")
    func oneTebibyte() {
        var reader = WebSocketFrameReader(maxMessageBytes: 1 << 20)
        #expect(feed(&reader, [header(.text, declaredLength: 1 << 40, length: .sixtyFour)]).failure?.code == 1009)
    }

    @Test("close frames: empty, code only, code and reason; a bad code or a 1-byte payload is 1002, a non-UTF-8 reason 1007")
    func closeFrames() {
        #expect(read([clientFrame(.close, [])]) == Outcome([.close(code: nil, reason: [])]))
        #expect(read([clientFrame(.close, [0x03, 0xE8])]) == Outcome([.close(code: 1000, reason: [])]))
        #expect(read([clientFrame(.close, [0x0B, 0xB8] + Array("bye ✓".utf8))]) == Outcome([.close(code: 3000, reason: Array("bye ✓".utf8))]))
        #expect(read([clientFrame(.close, [0x03])]).failure == WebSocketReadFailure(code: 1002, reason: "close frame with a 1-byte payload"))
        #expect(read([clientFrame(.close, [0x03, 0xE8, 0xC3])]).failure == WebSocketReadFailure(code: 1007, reason: "invalid UTF-8"))
        #expect(read([clientFrame(.close, [0x03, 0xE8, 0xFF, 0x61])]).failure?.code == 1007)
        let valid: [UInt16] = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 4000, 4999]
        for code in valid {
            #expect(read([clientFrame(.close, closePayload(code))]) == Outcome([.close(code: code, reason: [])]), "code \(code)")
        }
        let invalid: [UInt16] = [0, 999, 1004, 1005, 1006, 1012, 1015, 1016, 2000, 2999, 5000, 65_535]
        for code in invalid {
            #expect(read([clientFrame(.close, closePayload(code) + Array("x".utf8))]).failure?.code == 1002, "code \(code)")
        }
    }

    @Test("a close frame between fragments is delivered; what follows it is ignored, and so are later reads")
    func closeStopsReading() {
        var reader = WebSocketFrameReader(maxMessageBytes: 1_000)
        let bytes = clientFrame(.text, [0x61], fin: false) + clientFrame(.close, [0x03, 0xE9]) + clientFrame(.continuation, [0x62])
        #expect(feed(&reader, [bytes]) == Outcome([.close(code: 1001, reason: [])]))
        #expect(feed(&reader, [clientFrame(.text, [0x63]), [0xFF, 0xFF]]) == Outcome([]))
    }

    @Test("after a failure, further reads deliver nothing and do not crash")
    func afterFailure() {
        var reader = WebSocketFrameReader(maxMessageBytes: 1_000)
        #expect(feed(&reader, [clientFrame(.text, [0x61], fin: false), [0xF1, 0x80, 0, 0, 0, 0]]).failure?.code == 1002)
        #expect(feed(&reader, [clientFrame(.text, [0x61]), [0x00], clientFrame(.continuation, [0x62])]) == Outcome([]))
    }

    @Test("a character split across fragments, or across reads, is valid UTF-8")
    func utf8AcrossFragments() {
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        let fragments = [
            clientFrame(.text, [0x61, 0xE2], fin: false), clientFrame(.continuation, [0x82], fin: false),
            clientFrame(.continuation, [0xAC, 0x62]),
        ]
        #expect(read([fragments.joined().map { $0 }]) == Outcome([.text([0x61] + euro + [0x62])]))
        #expect(read(fragments) == Outcome([.text([0x61] + euro + [0x62])]))
        let frame = clientFrame(.text, euro)
        #expect(read(frame.map { [$0] }) == Outcome([.text(euro)]))
    }

    @Test("a message ending inside a character fails with 1007 at its final fragment")
    func truncatedUTF8() {
        let invalid = WebSocketReadFailure(code: 1007, reason: "invalid UTF-8")
        #expect(read([clientFrame(.text, [0x61, 0xE2, 0x82])]).failure == invalid)
        var reader = WebSocketFrameReader(maxMessageBytes: 1_000)
        #expect(feed(&reader, [clientFrame(.text, [0x61, 0xE2], fin: false)]) == Outcome([]))
        #expect(feed(&reader, [clientFrame(.continuation, [0x82], fin: false)]) == Outcome([]))
        #expect(feed(&reader, [clientFrame(.continuation, [])]).failure == invalid)
    }

    @Test("invalid UTF-8 fails with 1007 at once: before the final fragment, even mid-frame")
    func invalidUTF8FailsFast() {
        var reader = WebSocketFrameReader(maxMessageBytes: 1_000)
        #expect(feed(&reader, [clientFrame(.text, [0x61, 0xFF, 0x62], fin: false)]).failure?.code == 1007)
        reader = WebSocketFrameReader(maxMessageBytes: 1_000)
        let frame = clientFrame(.text, Array("abc".utf8) + [0xED, 0xA0, 0x80] + [UInt8](repeating: 0x61, count: 50))
        #expect(feed(&reader, [Array(frame[..<12])]).failure?.code == 1007)  // header (6) and 6 payload bytes
        #expect(read([clientFrame(.text, [0xC0, 0xAF])]).failure?.code == 1007)
    }

    @Test("the reader stays small: a few words, no storage while idle")
    func small() {
        #expect(MemoryLayout<WebSocketFrameReader>.size <= 48)
        var reader = WebSocketFrameReader(maxMessageBytes: 1_000)
        _ = feed(&reader, [clientFrame(.text, [UInt8](repeating: 0x61, count: 500), fin: false), clientFrame(.continuation, [0x62])])
        #expect(reader.bufferedBytes == 0)
    }

    @Test("random messages, fragments, pings and masks, fed in random pieces, deliver exactly what was sent")
    func randomized() {
        for seed in UInt64(1)...300 {
            var random = SplitMix(seed: seed)
            let (bytes, expected) = randomConversation(&random)
            let pieces: [[UInt8]]
            if random.next() % 8 == 0 {
                pieces = bytes.map { [$0] }
            } else {
                var cuts = (0..<Int(random.next() % 12)).map { _ in Int(random.next() % UInt64(bytes.count + 1)) }
                cuts = ([0] + cuts + [bytes.count]).sorted()
                pieces = zip(cuts, cuts.dropFirst()).map { Array(bytes[$0..<$1]) }
            }
            var reader = WebSocketFrameReader(maxMessageBytes: 1 << 20)
            let outcome = feed(&reader, pieces)
            #expect(outcome == Outcome(expected), "seed \(seed)")
            if expected.last.map({ if case .close = $0 { false } else { true } }) ?? true {
                #expect(reader.bufferedBytes == 0, "seed \(seed)")
            }
        }
    }
}

// MARK: - Building client frames

/// How a test frame encodes its payload length.
private enum LengthEncoding {
    /// The shortest form: 7 bits, or 16 bits from 126, or 64 bits from 65536.
    case minimal
    /// 126 and a 16-bit length, whatever the length.
    case sixteen
    /// 127 and a 64-bit length, whatever the length.
    case sixtyFour
}

/// The header of a client frame: FIN, RSV bits, opcode, MASK, length (declared, whatever
/// follows), masking key.
private func header(
    opcode: UInt8, fin: Bool = true, rsv: UInt8 = 0, declaredLength: UInt64, mask: [UInt8]? = [0x37, 0xFA, 0x21, 0x3D],
    length: LengthEncoding = .minimal
) -> [UInt8] {
    var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv & 7) << 4 | (opcode & 0x0F)]
    let maskBit: UInt8 = mask == nil ? 0 : 0x80
    let encoding: LengthEncoding
    if length == .minimal {
        encoding = declaredLength < 126 ? .minimal : declaredLength <= 0xFFFF ? .sixteen : .sixtyFour
    } else {
        encoding = length
    }
    switch encoding {
    case .minimal:
        bytes.append(maskBit | UInt8(declaredLength))
    case .sixteen:
        bytes.append(maskBit | 126)
        bytes += [UInt8(truncatingIfNeeded: declaredLength >> 8), UInt8(truncatingIfNeeded: declaredLength)]
    case .sixtyFour:
        bytes.append(maskBit | 127)
        bytes += stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: declaredLength >> UInt64($0)) }
    }
    return bytes + (mask ?? [])
}

/// The header of a client frame with a defined opcode.
private func header(
    _ opcode: WebSocketFrameHeader.Opcode, fin: Bool = true, declaredLength: UInt64, length: LengthEncoding = .minimal
) -> [UInt8] {
    header(opcode: opcode.rawValue, fin: fin, declaredLength: declaredLength, length: length)
}

/// A whole client frame: its header, then `payload` masked with `mask` (`nil`: sent unmasked).
private func clientFrame(
    opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, mask: [UInt8]? = [0x37, 0xFA, 0x21, 0x3D],
    length: LengthEncoding = .minimal
) -> [UInt8] {
    let head = header(opcode: opcode, fin: fin, rsv: rsv, declaredLength: UInt64(payload.count), mask: mask, length: length)
    guard let mask else { return head + payload }
    return head + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
}

/// A whole client frame with a defined opcode.
private func clientFrame(
    _ opcode: WebSocketFrameHeader.Opcode, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0,
    mask: [UInt8]? = [0x37, 0xFA, 0x21, 0x3D], length: LengthEncoding = .minimal
) -> [UInt8] {
    clientFrame(opcode: opcode.rawValue, payload, fin: fin, rsv: rsv, mask: mask, length: length)
}

/// A close frame's payload with `code` and no reason.
private func closePayload(_ code: UInt16) -> [UInt8] {
    [UInt8(code >> 8), UInt8(code & 0xFF)]
}

// MARK: - Feeding a reader

/// What a reader delivered, and the failure it threw (if any).
private struct Outcome: Equatable {
    /// The inputs delivered, in order.
    var inputs: [WebSocketInput]
    /// The failure thrown; `nil`: none.
    var failure: WebSocketReadFailure?

    /// An outcome with these inputs.
    init(_ inputs: [WebSocketInput], failure: WebSocketReadFailure? = nil) {
        self.inputs = inputs
        self.failure = failure
    }
}

/// Feeds `pieces` to `reader`, one read each, until one throws.
private func feed(_ reader: inout WebSocketFrameReader, _ pieces: [[UInt8]]) -> Outcome {
    var outcome = Outcome([])
    for piece in pieces {
        var bytes = piece
        let failure = bytes.withUnsafeMutableBytes { buffer -> WebSocketReadFailure? in
            do throws(WebSocketReadFailure) {
                try reader.read(buffer) { outcome.inputs.append($0) }
                return nil
            } catch {
                return error
            }
        }
        if let failure {
            outcome.failure = failure
            return outcome
        }
    }
    return outcome
}

/// Feeds `pieces` to a new reader with a `max`-byte message limit.
private func read(_ pieces: [[UInt8]], max: Int = 1_000) -> Outcome {
    var reader = WebSocketFrameReader(maxMessageBytes: max)
    return feed(&reader, pieces)
}

// MARK: - Random conversations

/// A random run of frames a page may send (text messages in random fragments with pings and
/// pongs between them, random masks and length encodings, sometimes a close at the end), and
/// the inputs the reader must deliver for it.
private func randomConversation(_ random: inout SplitMix) -> (bytes: [UInt8], expected: [WebSocketInput]) {
    var bytes: [UInt8] = []
    var expected: [WebSocketInput] = []
    func randomMask() -> [UInt8] {
        (0..<4).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }
    func randomEncoding(_ count: Int) -> LengthEncoding {
        switch random.next() % 6 {
        case 0: return count <= 0xFFFF ? .sixteen : .minimal
        case 1: return .sixtyFour
        default: return .minimal
        }
    }
    func maybeControlFrame() {
        guard random.next() % 4 == 0 else { return }
        let payload = (0..<Int(random.next() % 126)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let isPing = random.next() % 2 == 0
        bytes += clientFrame(isPing ? .ping : .pong, payload, mask: randomMask(), length: random.next() % 8 == 0 ? .sixteen : .minimal)
        expected.append(isPing ? .ping(payload) : .pong)
    }
    for _ in 0..<(1 + random.next() % 8) {
        maybeControlFrame()
        let text = randomText(&random)
        var cuts = (0..<Int(random.next() % 4)).map { _ in Int(random.next() % UInt64(text.count + 1)) }
        cuts = ([0] + cuts + [text.count]).sorted()
        let fragments = zip(cuts, cuts.dropFirst()).map { Array(text[$0..<$1]) }
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { maybeControlFrame() }
            bytes += clientFrame(
                index == 0 ? .text : .continuation, fragment, fin: index == fragments.count - 1, mask: randomMask(),
                length: randomEncoding(fragment.count))
        }
        expected.append(.text(text))
    }
    maybeControlFrame()
    if random.next() % 3 == 0 {
        let codes: [UInt16] = [1000, 1001, 1003, 1008, 1011, 3000, 4321]
        let code = codes[Int(random.next() % UInt64(codes.count))]
        let reason = Array(String(repeating: "é", count: Int(random.next() % 40)).utf8)
        bytes += clientFrame(.close, closePayload(code) + reason, mask: randomMask())
        expected.append(.close(code: code, reason: reason))
        bytes += clientFrame(.text, Array("after the close".utf8))  // ignored
    }
    return (bytes, expected)
}

/// Random valid UTF-8: mostly short, sometimes a few kilobytes; ASCII and characters of every length.
private func randomText(_ random: inout SplitMix) -> [UInt8] {
    let count = random.next() % 10 == 0 ? Int(random.next() % 5_000) : Int(random.next() % 300)
    var text: [UInt8] = []
    while text.count < count {
        if random.next() % 3 == 0 {
            var value = UInt32(random.next() % 0x11_0000)
            if (0xD800...0xDFFF).contains(value) { value = 0x20AC }
            if let scalar = Unicode.Scalar(value) { text += Array(String(Character(scalar)).utf8) }
        } else {
            text.append(UInt8(0x20 + random.next() % 0x5F))
        }
    }
    return text
}

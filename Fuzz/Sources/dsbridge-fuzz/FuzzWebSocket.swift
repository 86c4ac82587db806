// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeServer

/// What a reader made of a byte stream: its inputs in order, then the failure that stopped it.
private struct ReadOutcome: Equatable {
    var inputs: [WebSocketInput] = []
    var failure: WebSocketReadFailure?
}

/// Feeds `bytes` to a fresh reader in pieces ending at `cuts` (ascending offsets).
private func read(_ bytes: [UInt8], cuts: [Int], maxMessageBytes: Int) -> ReadOutcome {
    var reader = WebSocketFrameReader(maxMessageBytes: maxMessageBytes)
    var outcome = ReadOutcome()
    var copy = bytes
    var start = 0
    copy.withUnsafeMutableBytes { all in
        for end in cuts + [all.count] where end >= start {
            do throws(WebSocketReadFailure) {
                try reader.read(UnsafeMutableRawBufferPointer(rebasing: all[start..<end])) { outcome.inputs.append($0) }
            } catch {
                outcome.failure = error
                return
            }
            start = end
        }
    }
    return outcome
}

/// WebSocket frames from a page (the service loop's reader): no crash; the same inputs and
/// failure whether the bytes come whole, in pieces cut where the input says, or one byte at a
/// time; every text message valid UTF-8 within the limit; every close code one a peer may send;
/// failures only with the codes the reader documents.
func fuzzWebSocketFrames(_ payload: [UInt8], maxMessageBytes: Int) {
    let whole = read(payload, cuts: [], maxMessageBytes: maxMessageBytes)
    // Cut points drawn from the input itself (each byte a step of 1-16), so a finding replays.
    var cuts: [Int] = []
    var at = 0
    for byte in payload {
        at += Int(byte & 15) + 1
        if at >= payload.count { break }
        cuts.append(at)
    }
    require(read(payload, cuts: cuts, maxMessageBytes: maxMessageBytes) == whole, "cut reads differ from the whole read")
    if payload.count <= 512 {
        require(
            read(payload, cuts: Array(0..<payload.count), maxMessageBytes: maxMessageBytes) == whole,
            "byte-by-byte reads differ from the whole read")
    }
    for input in whole.inputs {
        switch input {
        case .text(let text):
            require(text.count <= maxMessageBytes, "a text message of \(text.count) bytes over the limit \(maxMessageBytes)")
            require(String(validating: text, as: UTF8.self) != nil, "a text message that is not UTF-8: \(show(text))")
        case .ping(let body):
            require(body.count <= 125, "a ping of \(body.count) bytes")
        case .close(let code, let reason):
            if let code { require((1000...1003).contains(code) || (1007...1011).contains(code) || (3000...4999).contains(code), "close code \(code)") }
            require(String(validating: reason, as: UTF8.self) != nil, "a close reason that is not UTF-8")
        case .pong:
            break
        }
    }
    if let failure = whole.failure {
        require([1002, 1003, 1007, 1009].contains(failure.code), "failure code \(failure.code)")
    }
}

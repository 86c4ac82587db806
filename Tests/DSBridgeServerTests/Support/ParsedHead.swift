// SPDX-License-Identifier: MIT
@testable import DSBridgeServer

/// `text` parsed as a request head by dsbridged's own parser (no socket).
func parsedHead(_ text: String) throws(HTTPRequestHead.Failure) -> HTTPRequestHead {
    let bytes = Array(text.utf8)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
    defer { buffer.deallocate() }
    buffer.copyBytes(from: bytes)
    return try HTTPRequestHead(parsing: UnsafeRawBufferPointer(buffer))
}

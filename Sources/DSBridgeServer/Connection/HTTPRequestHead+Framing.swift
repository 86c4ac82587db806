// SPDX-License-Identifier: MIT

/// How a parsed request head frames its body, or why it cannot be served at all
/// (PROTOCOL.md 1, text revision 1.14): the rules a request smuggler probes, judged the same
/// way on the page port and the admin listener, before any route sees the request. Pure.
extension HTTPRequestHead {
    /// Where the request's body ends.
    enum BodyFraming: Equatable, Sendable {
        /// `Content-Length` bytes (0 without the header).
        case length(Int)
        /// `Transfer-Encoding` (no `Content-Length`): the body cannot be skipped, so the
        /// connection ends after the answer (the endpoints answer 411).
        case transferEncoded

        /// The body's `Content-Length`; `nil` when it is transfer-encoded.
        var contentLength: Int? {
            guard case .length(let length) = self else { return nil }
            return length
        }
    }

    /// The body's framing, or the 400 a head gets when two readers could frame it
    /// differently or it must not be served (each case closes the connection):
    /// - an HTTP/1.1 request without `Host`, or with more than one (RFC 9112 3.2; an HTTP/1.0
    ///   request may leave it out);
    /// - a `Content-Length` that is not one decimal number, or repeated with another value
    ///   (RFC 9112 6.3);
    /// - `Content-Length` together with `Transfer-Encoding` (RFC 9112 6.1);
    /// - a WebSocket upgrade in HTTP/1.0 (RFC 9110 7.8, RFC 6455 4.1) or with a body
    ///   (what follows an upgrade's head is the first frames).
    func bodyFraming() throws(Failure) -> BodyFraming {
        if let host = header("host") {
            // Repeated fields are joined with ", ": two Host lines read as a list.
            guard !host.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == 32 || $0 == 9 }) else {
                throw .malformed("more than one Host (or a Host with a comma or space)")
            }
        } else if minorVersion >= 1 {
            throw .malformed("an HTTP/1.1 request needs a Host header")
        }
        guard let contentLength else {
            throw .malformed("Content-Length is not one decimal number")
        }
        let transferEncoded = hasHeader("transfer-encoding")
        if transferEncoded, hasHeader("content-length") {
            throw .malformed("Content-Length and Transfer-Encoding together")
        }
        if isWebSocketUpgrade {
            guard minorVersion >= 1 else { throw .malformed("a WebSocket upgrade needs HTTP/1.1") }
            guard contentLength == 0, !transferEncoded else { throw .malformed("a WebSocket upgrade has no body") }
        }
        return transferEncoded ? .transferEncoded : .length(contentLength)
    }
}

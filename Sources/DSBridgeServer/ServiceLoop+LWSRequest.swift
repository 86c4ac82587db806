// SPDX-License-Identifier: MIT
import CLibWebSockets
import DSBridge

/// Details of a request libwebsockets parsed (the admin listener's HTTP), read through its
/// API while it holds the request headers.
extension ServiceLoop {
    func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buf = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buf, Int32(buf.count), token) >= 0 else { return nil }
        return Self.string(buf)
    }

    func customHeader(_ wsi: OpaquePointer, _ name: String) -> String? {
        let key = name.lowercased() + ":"
        let length = Int(lws_hdr_custom_length(wsi, key, Int32(key.utf8.count)))
        guard length >= 0 else { return nil }
        var buf = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_custom_copy(wsi, &buf, Int32(buf.count), key, Int32(key.utf8.count)) >= 0 else { return nil }
        return Self.string(buf)
    }

    func requestURI(_ wsi: OpaquePointer, token: lws_token_indexes) -> String? {
        header(wsi, token)
    }

    static func string(_ buf: [CChar]) -> String {
        let bytes = buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The address the request counts under: the TCP peer, or for a trusted proxy the
    /// client it names in `X-Forwarded-For`.
    func clientAddress(_ wsi: OpaquePointer) -> String {
        clientAddresses.resolve(peer: peerAddress(wsi), forwardedFor: header(wsi, WSI_TOKEN_X_FORWARDED_FOR))
    }

    func peerAddress(_ wsi: OpaquePointer) -> String {
        var buf = [CChar](repeating: 0, count: 128)
        guard lws_get_peer_simple(wsi, &buf, buf.count) != nil else { return "unknown" }
        return Self.string(buf)
    }
}

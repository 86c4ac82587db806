// SPDX-License-Identifier: MIT

extension HTTPAnswer {
    /// The answer as HTTP/1.1 bytes: status line, `content-type`, `content-length`, this
    /// answer's headers, `extraHeaders` (CORS), the two every answer carries, `connection:
    /// close` when the connection ends after it, then the body unless `omitBody` (HEAD:
    /// the length of the body it would have, no body; RFC 9110 9.3.2). Pure.
    func encoded(extraHeaders: [(String, String)], omitBody: Bool, closing: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reasonPhrase(status))\r\n"
        head += "content-type: \(contentType)\r\ncontent-length: \(body.count)\r\n"
        for (name, value) in headers + extraHeaders {
            head += "\(name.lowercased()): \(value)\r\n"
        }
        head += "x-content-type-options: nosniff\r\ncache-control: no-store\r\n"
        if closing { head += "connection: close\r\n" }
        head += "\r\n"
        var bytes = Array(head.utf8)
        if !omitBody && !self.omitBody { bytes += body }
        return bytes
    }

    /// The reason phrase of `status` (RFC 9110 15).
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: status < 400 ? "OK" : "Error"
        }
    }
}

// SPDX-License-Identifier: MIT

extension HTTPAnswer {
    /// The answer as HTTP/1.1 bytes: status line, `content-type`, `content-length`, this
    /// answer's headers, `extraHeaders` (CORS), the two every answer carries, `connection:
    /// close` when the connection ends after it, then the body unless `omitBody` (HEAD:
    /// the length of the body it would have, no body; RFC 9110 9.3.2). Pure.
    func encoded(extraHeaders: [(String, String)], omitBody: Bool, closing: Bool) -> [UInt8] {
        // Written as bytes into one buffer of about the right size: no string is built.
        let sendsBody = !omitBody && !self.omitBody
        var bytes: [UInt8] = []
        bytes.reserveCapacity(192 + (sendsBody ? body.count : 0) + 48 * (headers.count + extraHeaders.count))
        Self.append("HTTP/1.1 ", to: &bytes)
        Self.appendDecimal(status, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: Self.reasonPhrase(status).utf8)
        Self.append("\r\ncontent-type: ", to: &bytes)
        bytes.append(contentsOf: contentType.utf8)
        Self.append("\r\ncontent-length: ", to: &bytes)
        Self.appendDecimal(body.count, to: &bytes)
        Self.append("\r\n", to: &bytes)
        for (name, value) in headers { Self.appendField(name, value, to: &bytes) }
        for (name, value) in extraHeaders { Self.appendField(name, value, to: &bytes) }
        Self.append("x-content-type-options: nosniff\r\ncache-control: no-store\r\n", to: &bytes)
        if closing { Self.append("connection: close\r\n", to: &bytes) }
        Self.append("\r\n", to: &bytes)
        if sendsBody { bytes += body }
        return bytes
    }

    /// Appends a literal's bytes as one copy (a `String` literal's UTF-8 view is walked byte
    /// by byte when the string is small).
    private static func append(_ literal: StaticString, to bytes: inout [UInt8]) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `name: value` CRLF, the name in lower case (names are ASCII tokens).
    private static func appendField(_ name: String, _ value: String, to bytes: inout [UInt8]) {
        for c in name.utf8 { bytes.append(c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") ? c | 0x20 : c) }
        append(": ", to: &bytes)
        bytes.append(contentsOf: value.utf8)
        append("\r\n", to: &bytes)
    }

    /// The decimal digits of a non-negative `value` (written backwards into a stack
    /// buffer, then appended: reversing a slice of `bytes` in place copied the array).
    private static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: any Int's 19 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var rest = value.magnitude
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0 && start > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

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
        case 426: "Upgrade Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: status < 400 ? "OK" : "Error"
        }
    }
}

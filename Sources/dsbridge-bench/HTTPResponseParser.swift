// SPDX-License-Identifier: MIT

/// Splits an HTTP/1.1 byte stream into responses with a `Content-Length` body (what
/// dsbridged sends). Chunked bodies are not supported: the bench reports them as errors.
struct HTTPResponseParser {
    /// One response.
    struct Response {
        var status: Int
        var body: [UInt8]
        /// The server will close the connection after it (`Connection: close`).
        var closes: Bool
    }

    /// Why the stream could not be read.
    enum ParseError: Error {
        case badStatusLine
        case noContentLength
        case headersTooLarge
    }

    private var buffer: [UInt8] = []

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete response, or `nil` until more bytes arrive.
    mutating func next() throws(ParseError) -> Response? {
        guard let headEnd = headerEnd() else {
            if buffer.count > 65_536 { throw .headersTooLarge }
            return nil
        }
        // "HTTP/1.1 200 ..."
        guard headEnd >= 12, buffer[8] == UInt8(ascii: " ") else { throw .badStatusLine }
        var status = 0
        for k in 9..<12 {
            let b = buffer[k]
            guard b >= 0x30, b <= 0x39 else { throw .badStatusLine }
            status = status * 10 + Int(b - 0x30)
        }
        var length: Int?
        var closes = false
        var lineStart = 0
        while lineStart < headEnd {
            var lineEnd = lineStart
            while lineEnd + 1 < headEnd, !(buffer[lineEnd] == 0x0D && buffer[lineEnd + 1] == 0x0A) { lineEnd += 1 }
            if lineEnd + 1 >= headEnd { lineEnd = headEnd }
            let line = buffer[lineStart..<lineEnd]
            if let value = Self.value(of: "content-length", in: line) {
                length = Int(String(decoding: value, as: UTF8.self).trimmingSpaces())
            } else if let value = Self.value(of: "connection", in: line) {
                closes = String(decoding: value, as: UTF8.self).lowercased().contains("close")
            }
            lineStart = lineEnd + 2
        }
        guard let length else { throw .noContentLength }
        let bodyStart = headEnd + 4
        guard buffer.count >= bodyStart + length else { return nil }
        let body = Array(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeFirst(bodyStart + length)
        return Response(status: status, body: body, closes: closes)
    }

    /// The index of the `\r\n\r\n` ending the headers.
    private func headerEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4)
        where buffer[i] == 0x0D && buffer[i + 1] == 0x0A && buffer[i + 2] == 0x0D && buffer[i + 3] == 0x0A {
            return i
        }
        return nil
    }

    /// The value of header `name` (lower case) if `line` is that header.
    private static func value(of name: StaticString, in line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let n = name.utf8CodeUnitCount
        guard line.count > n, line[line.startIndex + n] == UInt8(ascii: ":") else { return nil }
        for k in 0..<n {
            var b = line[line.startIndex + k]
            if b >= 0x41, b <= 0x5A { b += 0x20 }
            if b != name.utf8Start[k] { return nil }
        }
        return line[(line.startIndex + n + 1)...]
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}

// SPDX-License-Identifier: MIT
import Foundation

/// A one-shot HTTP/1.1 client (Connection: close) over ``TestSocket``.
enum TestHTTP {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func request(
        port: Int, method: String = "GET", path: String, headers: [String: String] = [:], body: [UInt8]? = nil
    ) throws -> Response {
        let socket = try TestSocket(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try socket.write(Array(head.utf8) + (body ?? []))
        let raw = try socket.readToEnd()
        guard let split = indexAfterHeaders(raw) else { throw TestClientError.badHandshake("no header end") }
        let headerText = String(decoding: raw[..<split], as: UTF8.self)
        var lines = headerText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        var fields: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: fields, body: Array(raw[split...]))
    }

    private static func indexAfterHeaders(_ raw: [UInt8]) -> Int? {
        let d: [UInt8] = [13, 10, 13, 10]
        guard raw.count >= 4 else { return nil }
        for i in 0...(raw.count - 4) where Array(raw[i..<(i + 4)]) == d { return i + 4 }
        return nil
    }
}

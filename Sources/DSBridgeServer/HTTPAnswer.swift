// SPDX-License-Identifier: MIT
import DSBridge

/// A complete HTTP response, built off the service thread and written on it.
struct HTTPAnswer: Sendable {
    var status: Int
    var contentType: String
    var body: [UInt8]
    /// Extra headers (`name`, `value`); names without the colon.
    var headers: [(String, String)] = []
    /// For `HEAD`: headers (with the length of `body`) but no body.
    var omitBody = false
    /// Close the connection after this answer.
    var closeAfter = false

    static func text(_ status: Int, _ text: String) -> HTTPAnswer {
        HTTPAnswer(status: status, contentType: "text/plain; charset=utf-8", body: Array((text + "\n").utf8))
    }

    static func json(_ status: Int, _ value: JSONValue) -> HTTPAnswer {
        HTTPAnswer(status: status, contentType: "application/json", body: JSONWriter.bytes(value))
    }

    static func json(_ status: Int, bytes: [UInt8]) -> HTTPAnswer {
        HTTPAnswer(status: status, contentType: "application/json", body: bytes)
    }
}

/// The HTTP method of a request (`other` for any method no route takes).
enum HTTPMethod: String, Sendable {
    case get = "GET"
    case post = "POST"
    case options = "OPTIONS"
    case head = "HEAD"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
    case other = "OTHER"
}

// SPDX-License-Identifier: MIT

/// A request's headers by lower-case name, read from the parsed head when asked for (no
/// table is built per request).
///
/// A class, used on the service thread only: as a struct stored in ``HTTPExchange`` every
/// look-up copied it out (a retain and a release of each of the head's buffers).
final class RequestHeaders {
    /// The request's head (none for a head that was refused).
    private let head: HTTPRequestHead?
    /// `Content-Length` as one number (a repeated equal value, `5, 5`, reads as `5`).
    private let contentLength: Int?

    /// No headers (a refused head).
    init() {
        head = nil
        contentLength = nil
    }

    /// The headers of `head`; `contentLength` is its `Content-Length` as checked.
    init(head: HTTPRequestHead, contentLength: Int?) {
        self.head = head
        self.contentLength = contentLength
    }

    /// The value of header `name` (lower-case), repeated fields joined with ", ".
    subscript(name: StaticString) -> String? {
        // (Optional chaining reads the head in place; `if let` would copy it, a retain
        // and a release of each of its buffers per look-up.)
        if let contentLength, name.utf8CodeUnitCount == 14, name.description == "content-length", head?.hasHeader(name) == true {
            return String(contentLength)
        }
        return head?.header(name)
    }

    /// Whether header `name` (lower-case) is present; no string is made.
    func has(_ name: StaticString) -> Bool {
        head?.hasHeader(name) == true
    }

    /// `Content-Length` as a number (`nil` without it). A head whose `Content-Length` is
    /// not one number, or that also has `Transfer-Encoding`, is refused before any route
    /// reads it (``HTTPRequestHead/bodyFraming()``).
    var contentLengthNumber: Int? {
        guard head?.hasHeader("content-length") == true else { return nil }
        return contentLength
    }

    /// Every header, for an authenticator.
    var dictionary: [String: String] {
        var all: [String: String] = [:]
        if let head {
            for field in head.fields { all[field.name] = all[field.name].map { $0 + ", " + field.value } ?? field.value }
            if let contentLength, all["content-length"] != nil { all["content-length"] = String(contentLength) }
        }
        return all
    }
}

// SPDX-License-Identifier: MIT

/// A `POST /dsbridge/call` request, checked (PROTOCOL.md 4). Pure: the transport hands it
/// the body and the `X-DSBridge-After` header.
public struct SyncCallRequest: Sendable, Equatable {
    public var method: String
    /// The `arg` field's text as sent (`nil` when omitted), parsed only when the call runs.
    public var rawArg: RawJSON?
    /// The page's W3C trace context (a valid `traceparent` header), for the call's span.
    public var trace: TraceContext?
    /// The `arg` field as a value (`nil` when omitted).
    public var arg: JSONValue? { rawArg?.parsedValue }
    /// Highest socket call id the page had sent; the call waits until those started.
    public var after: Int64
    /// Size of the request body, counted against the memory budget while the call is held
    /// or runs (PROTOCOL.md 2.6).
    public var bodyBytes: Int

    /// Largest `X-DSBridge-After` accepted: 2^53 - 1.
    public static let maxAfter: Int64 = (1 << 53) - 1

    /// Requests are equal when they ask the same (their body's size is bookkeeping).
    public static func == (a: SyncCallRequest, b: SyncCallRequest) -> Bool {
        a.method == b.method && a.arg == b.arg && a.after == b.after
    }

    public init(method: String, arg: JSONValue?, after: Int64, bodyBytes: Int = 0) {
        self.method = method
        self.rawArg = arg.map(RawJSON.init)
        self.after = after
        self.bodyBytes = bodyBytes
    }

    /// Parses and checks a request.
    /// - Throws: a sentence for the 400 answer when the body is not `{"method": string,
    ///   "arg"?: ...}` or `after` is not `0|[1-9][0-9]*` up to 2^53-1.
    public init(body: [UInt8], afterHeader: String?, maxDepth: Int) throws(ProtocolViolation) {
        var after: Int64 = 0
        if let header = afterHeader {
            guard let value = Self.parseAfter(header) else {
                throw ProtocolViolation("X-DSBridge-After must be a decimal integer from 0 to 2^53-1")
            }
            after = value
        }
        // Checked as the parser would, without a tree: only `method` is parsed, `arg`
        // stays a slice of the body until the call runs.
        let fields: (method: Range<Int>?, arg: Range<Int>?, isObject: Bool)
        switch body.withUnsafeBufferPointer({ Self.fields(of: $0, maxDepth: maxDepth) }) {
        case .success(let found): fields = found
        case .failure(let error): throw ProtocolViolation("body is not JSON: \(error)")
        }
        guard fields.isObject else {
            throw ProtocolViolation("body must be a JSON object {\"method\": string, \"arg\": ...}")
        }
        guard let methodRange = fields.method, case .string(let method)? = try? JSONParser.parse(body[methodRange], maxDepth: maxDepth) else {
            throw ProtocolViolation("body needs a string \"method\"")
        }
        self.method = method
        self.rawArg = fields.arg.map { RawJSON(checked: body[$0]) }
        self.after = after
        self.bodyBytes = body.count
    }

    /// Where `method` and `arg` are in a body (the last of a name given twice, as the parser
    /// keeps it), and whether the body is an object; a parse error for a body that is not JSON.
    private static func fields(
        of body: UnsafeBufferPointer<UInt8>, maxDepth: Int
    ) -> Result<(method: Range<Int>?, arg: Range<Int>?, isObject: Bool), JSONParseError> {
        var s = JSONScanner(body, maxDepth: maxDepth)
        var method: Range<Int>?
        var arg: Range<Int>?
        do throws(JSONParseError) {
            s.skipWhitespace()
            guard s.peek == UInt8(ascii: "{") else {
                try s.skipValue(depth: 0)
                try s.expectEnd()
                return .success((nil, nil, false))
            }
            try s.members(depth: 1) { name, value in
                if name.is("method") {
                    method = value.range
                } else if name.is("arg") {
                    arg = value.range
                }
            }
            try s.expectEnd()
        } catch {
            return .failure(error)
        }
        return .success((method, arg, true))
    }

    static func parseAfter(_ text: String) -> Int64? {
        let utf8 = Array(text.utf8)
        guard !utf8.isEmpty, utf8.count <= 16 else { return nil }
        if utf8.count > 1 && utf8[0] == UInt8(ascii: "0") { return nil }
        var v: Int64 = 0
        for c in utf8 {
            guard c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") else { return nil }
            v = v * 10 + Int64(c - UInt8(ascii: "0"))
        }
        return v <= maxAfter ? v : nil
    }

    /// The 200 body for a call's result: `{"code":0,"data":…}` or
    /// `{"code":-1,"data":"","error":{"kind":…,"message":…}}`.
    public static func answerBody(_ result: Result<JSONValue, CallFailure>) -> [UInt8] {
        var w = JSONWriter()
        w.raw("{")
        ServerMessage.writeOutcome(result, into: &w)
        w.raw("}")
        return w.bytes
    }
}

// SPDX-License-Identifier: MIT
// libFuzzer target over the real DSBridge code: page frames (PageFrameDecoder), the JSON parser
// and writer, method names and their routes (MethodName, CallRoute), call arguments
// (CallArgument), sync-call requests (SyncCallRequest) and the server's message encoder
// (ServerMessage). Besides "no crash", every entry point checks properties against small
// independent oracles (PROTOCOL.md 2 and 4); a violated property is a fatalError, which
// libFuzzer reports as a crash and saves as a crash-* file.
//
// Input layout: byte 0 picks the entry point and its parameters, the rest is the payload.
//   bits 0-2: 0 first frame, 1 later frame, 2 JSON, 3 method name, 4 sync call,
//             5 server messages, 6 string `arg`, 7 WebSocket frames (WebSocketFrameReader)
//   bits 3-5: maxDepth, one of `depthChoices` (0 = the default 128); for WebSocket frames
//             the message limit, one of `messageLimitChoices`
//   bit 6:    sync call without an X-DSBridge-After header
//
// FUZZ_KNOWN (comma-separated) turns off the checks of bugs already reported and not yet
// fixed, so a run can look past them: `method-split` (MethodName splits a name whose last
// dot starts a grapheme cluster, e.g. "a.\u{301}b", at the wrong place) and `route-alias`
// (a method name routes to a registered name that is only canonically equivalent, e.g.
// "cafe\u{301}" for "caf\u{E9}"). Off by default: every check is on.
import DSBridge
import Glibc

/// libFuzzer's driver (linked in by `-sanitize=fuzzer`).
// swift-format-ignore: AlwaysUseLowerCamelCase
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

let depthChoices = [128, 1, 2, 3, 4, 8, 16, 64]
let messageLimitChoices = [4 << 20, 0, 1, 16, 125, 126, 65_536, 200]

/// One input. Also exported under libFuzzer's well-known name: `-sanitize=fuzzer` links
/// libFuzzer's own `main` (unused here, SwiftPM's entry point wins), which refers to it.
// swift-format-ignore: AlwaysUseLowerCamelCase
@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let selector = data[0]
    let payload = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let maxDepth = depthChoices[Int(selector >> 3) & 7]
    switch selector & 7 {
    case 0: fuzzFrame(payload, helloSeen: false, maxDepth: maxDepth)
    case 1: fuzzFrame(payload, helloSeen: true, maxDepth: maxDepth)
    case 7: fuzzWebSocketFrames(payload, maxMessageBytes: messageLimitChoices[Int(selector >> 3) & 7])
    case 2: fuzzJSON(payload, maxDepth: maxDepth)
    case 3: fuzzMethodName(payload)
    case 4: fuzzSyncCall(payload, withHeader: selector & 0x40 == 0, maxDepth: maxDepth)
    case 5: fuzzServerMessages(payload)
    default: fuzzStringArgument(payload, maxDepth: maxDepth)
    }
    return 0
}

@main
enum FuzzMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput))
    }
}

// MARK: - Checking

/// Checks turned off by FUZZ_KNOWN.
let knownBugs: Set<Substring> = Set((getenv("FUZZ_KNOWN").map { String(cString: $0) } ?? "").split(separator: ","))

/// Stops with a message when a property does not hold (libFuzzer saves the input).
func require(_ ok: Bool, _ what: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !ok { fatalError("property violated: \(what())", file: file, line: line) }
}

/// A short printable form of a value or text for messages.
func show(_ v: JSONValue?) -> String { v.map { String(JSONWriter.string($0).prefix(300)) } ?? "nil" }
func show(_ s: String) -> String { String(reflecting: String(s.prefix(200))) }
func show(_ b: [UInt8]) -> String { show(String(decoding: b.prefix(200), as: UTF8.self)) }

/// Strings compared by their bytes: Swift's `==` on String is canonical equivalence, which
/// would hide a parser or writer that changes the bytes of a string.
func sameText(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

func sameText(_ a: String?, _ b: String?) -> Bool {
    switch (a, b) {
    case (nil, nil): return true
    case (let x?, let y?): return sameText(x, y)
    default: return false
    }
}

/// Exactly the same value: same kinds, same bytes, same bits, same member order.
func identical(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.integer(let x), .integer(let y)): return x == y
    case (.number(let x), .number(let y)): return x.bitPattern == y.bitPattern
    case (.string(let x), .string(let y)): return sameText(x, y)
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(identical)
    case (.object(let x), .object(let y)):
        return x.count == y.count
            && zip(x.elements, y.elements).allSatisfy { sameText($0.key, $1.key) && identical($0.value, $1.value) }
    default: return false
    }
}

func identical(_ a: JSONValue?, _ b: JSONValue?) -> Bool {
    switch (a, b) {
    case (nil, nil): return true
    case (let x?, let y?): return identical(x, y)
    default: return false
    }
}

/// Whether `b` is what `a` may become when written and read again: the same value, except
/// the writer's documented number forms (an integral Double below 1e15 prints as an integer,
/// as JavaScript does; a non-finite one prints as `null`).
func survives(_ a: JSONValue, as b: JSONValue) -> Bool {
    switch (a, b) {
    case (.number(let x), _) where !x.isFinite: return b == .null
    case (.number(let x), .number(let y)): return x.bitPattern == y.bitPattern
    case (.number(let x), .integer(let y)): return x.rounded(.towardZero) == x && abs(x) < 1e15 && Double(y) == x
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { survives($0, as: $1) }
    case (.object(let x), .object(let y)):
        return x.count == y.count
            && zip(x.elements, y.elements).allSatisfy { sameText($0.key, $1.key) && survives($0.value, as: $1.value) }
    default: return identical(a, b)
    }
}

/// Nesting of arrays and objects in a value (a scalar is 0, `[]` is 1).
func depth(_ v: JSONValue) -> Int {
    switch v {
    case .array(let a): return 1 + (a.map(depth).max() ?? 0)
    case .object(let o): return 1 + (o.values.map(depth).max() ?? 0)
    default: return 0
    }
}

/// Deepest bracket nesting in the text, brackets inside strings not counted. For valid JSON
/// this is the value's depth; for any text, a parser that got deeper than N levels before
/// failing has seen more than N unclosed brackets here.
func rawDepth(_ bytes: [UInt8]) -> Int {
    var level = 0
    var deepest = 0
    var inString = false
    var escaped = false
    for c in bytes {
        if inString {
            if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
        } else if c == UInt8(ascii: "\"") {
            inString = true
        } else if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") {
            level += 1
            deepest = max(deepest, level)
        } else if c == UInt8(ascii: "]") || c == UInt8(ascii: "}") {
            level -= 1
        }
    }
    return deepest
}

func parse(_ bytes: [UInt8], maxDepth: Int) -> Result<JSONValue, JSONParseError> {
    Result { () throws(JSONParseError) in try JSONParser.parse(bytes, maxDepth: maxDepth) }
}

func sameResult(_ a: Result<JSONValue, JSONParseError>, _ b: Result<JSONValue, JSONParseError>) -> Bool {
    switch (a, b) {
    case (.success(let x), .success(let y)): return identical(x, y)
    case (.failure(let x), .failure(let y)): return x == y
    default: return false
    }
}

func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for c in bytes { h = (h ^ UInt64(c)) &* 0x100_0000_01b3 }
    return h
}

// MARK: - JSON

func fuzzJSON(_ payload: [UInt8], maxDepth: Int) {
    let result = parse(payload, maxDepth: maxDepth)
    // Every entry point reads the same bytes the same way: contiguous bytes, a collection
    // without contiguous storage (the copying path) and, for valid UTF-8, a String.
    let viaCopy = Result { () throws(JSONParseError) in try JSONParser.parse(payload.lazy.map { $0 }, maxDepth: maxDepth) }
    require(sameResult(result, viaCopy), "non-contiguous input parsed differently: \(show(payload))")
    if let text = String(validating: payload, as: UTF8.self) {
        let viaString = Result { () throws(JSONParseError) in try JSONParser.parse(text, maxDepth: maxDepth) }
        require(sameResult(result, viaString), "String input parsed differently: \(show(payload))")
    }
    // One grammar: the readers that skip values (JSONObjectReader, on the scanner the
    // parser is built on) accept exactly the objects and arrays the parser accepts.
    payload.withUnsafeBufferPointer { text in
        let members = JSONObjectReader.members(of: text, maxDepth: maxDepth)
        let elements = JSONObjectReader.elements(of: text, maxDepth: maxDepth)
        var isObject = false
        var isArray = false
        if case .success(.object) = result { isObject = true }
        if case .success(.array) = result { isArray = true }
        require((members != nil) == isObject, "the object reader and the parser disagree: \(show(payload))")
        require((elements != nil) == isArray, "the array reader and the parser disagree: \(show(payload))")
    }

    let raw = rawDepth(payload)
    switch result {
    case .failure(.tooDeep(let limit)):
        require(limit == maxDepth, "tooDeep names limit \(limit), not \(maxDepth)")
        require(raw > maxDepth, "refused as deeper than \(maxDepth) but nests only \(raw): \(show(payload))")
    case .failure(.invalid(let offset, _)):
        require(offset >= 0 && offset <= payload.count, "error offset \(offset) outside 0...\(payload.count)")
    case .success(let value):
        // The limit is exact: never more than maxDepth levels, and exactly the value's depth.
        require(raw <= maxDepth, "accepted \(raw) levels with maxDepth \(maxDepth): \(show(payload))")
        require(depth(value) == raw, "value depth \(depth(value)) but the text nests \(raw): \(show(payload))")
        if raw >= 1 {
            require(
                (try? JSONParser.parse(payload, maxDepth: raw)) != nil,
                "refused at maxDepth \(raw), its own depth: \(show(payload))")
            if case .failure(.tooDeep) = parse(payload, maxDepth: raw - 1) {
            } else {
                require(false, "maxDepth \(raw - 1) did not refuse \(raw) levels: \(show(payload))")
            }
        }
        checkRoundTrip(value, maxDepth: maxDepth)
        checkCallArgument(value, maxDepth: maxDepth)
    }
}

/// Writing a value and reading it back gives the same value (up to the writer's documented
/// number forms), and the written text is a fixed point: writing it again is byte-identical.
func checkRoundTrip(_ value: JSONValue, maxDepth: Int) {
    let written = JSONWriter.bytes(value)
    require(JSONWriter.string(value).utf8.elementsEqual(written), "string(_:) and bytes(_:) differ for \(show(value))")
    require(value.description.utf8.elementsEqual(written), "description differs from the writer for \(show(value))")
    let again: JSONValue
    switch parse(written, maxDepth: maxDepth) {
    case .success(let v): again = v
    case .failure(let e): fatalError("written JSON does not parse (\(e)): \(show(written))")
    }
    require(survives(value, as: again), "round trip changed \(show(value)) into \(show(again))")
    let rewritten = JSONWriter.bytes(again)
    require(rewritten == written, "writer is not a fixed point: \(show(written)) then \(show(rewritten))")
}

/// CallArgument reads `{"data": ANY, "_dscbstub": "dscbN"}` as an object or as a string
/// holding that JSON; omitted or null is `{"data": null}`; anything else is badArgument.
func checkCallArgument(_ wire: JSONValue?, maxDepth: Int) {
    let got = Result { () throws(CallFailure) in try CallArgument(wire: wire, maxDepth: maxDepth) }
    var envelope: JSONObject?
    switch wire {
    case nil, .null?:
        envelope = [:]
    case .object(let members)?:
        envelope = members
    case .string(let text)?:
        if case .object(let members)? = try? JSONParser.parse(text, maxDepth: maxDepth) { envelope = members }
    default:
        envelope = nil
    }
    var expected: CallArgument?
    if let envelope {
        switch envelope["_dscbstub"] {
        case nil, .null?: expected = CallArgument(data: envelope["data"] ?? .null, stub: nil)
        case .string(let stub)?: expected = CallArgument(data: envelope["data"] ?? .null, stub: stub)
        default: expected = nil
        }
    }
    switch (got, expected) {
    case (.success(let a), let e?):
        require(identical(a.data, e.data) && sameText(a.stub, e.stub), "arg \(show(wire)) read as \(show(a.data)) stub \(a.stub ?? "nil")")
    case (.failure(let f), nil):
        require(f.kind == .badArgument, "arg \(show(wire)) failed with \(f.kind), not badArgument")
    case (.success(let a), nil):
        require(false, "arg \(show(wire)) accepted as \(show(a.data)), expected badArgument")
    case (.failure(let f), _?):
        require(false, "arg \(show(wire)) refused (\(f.message)), expected success")
    }
}

/// Reading `arg` from the frame's text gives what reading it from its parsed value gives.
func checkRawCallArgument(_ call: PageMessage.Call, maxDepth: Int) {
    let raw = Result { () throws(CallFailure) in try CallArgument(raw: call.rawArg, maxDepth: maxDepth) }
    let parsed = Result { () throws(CallFailure) in try CallArgument(wire: call.arg, maxDepth: maxDepth) }
    switch (raw, parsed) {
    case (.success(let a), .success(let b)):
        require(identical(a.data, b.data) && sameText(a.stub, b.stub), "arg \(show(call.arg)) read from text as \(show(a.data))")
    case (.failure(let a), .failure(let b)):
        require(a.kind == b.kind, "arg \(show(call.arg)) refused as \(a.kind) from text, \(b.kind) from its value")
    default:
        require(false, "arg \(show(call.arg)): from text \(raw), from its value \(parsed)")
    }
}

func fuzzStringArgument(_ payload: [UInt8], maxDepth: Int) {
    checkCallArgument(.string(String(decoding: payload, as: UTF8.self)), maxDepth: maxDepth)
}

// MARK: - Frames

func fuzzFrame(_ payload: [UInt8], helloSeen: Bool, maxDepth: Int) {
    let decoder = PageFrameDecoder(maxDepth: maxDepth)
    let result = Result { () throws(ProtocolViolation) in try decoder.decode(payload, helloSeen: helloSeen) }
    let parsed = parse(payload, maxDepth: maxDepth)
    let raw = rawDepth(payload)
    switch (result, parsed) {
    case (.success, .failure(let e)):
        require(false, "frame accepted though its JSON is refused (\(e)): \(show(payload))")
    case (.failure(let v), .failure(.tooDeep)):
        require(v.reason.hasPrefix("nesting deeper"), "too deep frame refused as \(show(v.reason))")
        require(raw > maxDepth, "frame refused as too deep with \(raw) levels, maxDepth \(maxDepth)")
    case (.failure(let v), .failure(.invalid)):
        require(v.reason == "not JSON", "invalid JSON frame refused as \(show(v.reason))")
    case (.failure(let v), .success(let value)):
        require(!v.reason.hasPrefix("nesting") && v.reason != "not JSON", "valid frame refused as \(show(v.reason))")
        require(raw <= maxDepth, "JSON deeper than maxDepth parsed")
        // A frame means its value: the writer's canonical text of it is refused the same way.
        let canonical = decoder.decodeResult(JSONWriter.bytes(value), helloSeen: helloSeen)
        guard case .failure(let v2) = canonical, v2 == v else {
            fatalError("canonical text of a refused frame decoded differently: \(show(value))")
        }
    case (.success(let messages), .success(let value)):
        // "The decoder never accepts a frame deeper than maxDepth."
        require(raw <= maxDepth && depth(value) <= maxDepth, "accepted a frame of \(raw) levels, maxDepth \(maxDepth)")
        checkMessages(messages, of: value, helloSeen: helloSeen)
        let canonical = decoder.decodeResult(JSONWriter.bytes(value), helloSeen: helloSeen)
        guard case .success(let again) = canonical, sameMessages(messages, again) else {
            fatalError("canonical text of an accepted frame decoded differently: \(show(value))")
        }
        for case .call(let call) in messages {
            checkCallArgument(call.arg, maxDepth: maxDepth)
            checkRawCallArgument(call, maxDepth: maxDepth)
            checkName(call.method)
        }
    }
}

extension PageFrameDecoder {
    func decodeResult(_ bytes: [UInt8], helloSeen: Bool) -> Result<[PageMessage], ProtocolViolation> {
        Result { () throws(ProtocolViolation) in try decode(bytes, helloSeen: helloSeen) }
    }
}

/// What PROTOCOL.md 2 and 2.1-2.2 say an accepted frame holds.
func checkMessages(_ messages: [PageMessage], of value: JSONValue, helloSeen: Bool) {
    let objects: [JSONObject]
    switch value {
    case .object(let o): objects = [o]
    case .array(let a):
        objects = a.map { element in
            guard case .object(let o) = element else { fatalError("accepted a batch with a non-object element") }
            return o
        }
    default: fatalError("accepted a frame that is neither an object nor an array: \(show(value))")
    }
    require(messages.count == objects.count, "\(objects.count) objects decoded as \(messages.count) messages")
    for (index, (message, object)) in zip(messages, objects).enumerated() {
        guard case .string(let t)? = object["t"] else { fatalError("accepted a message without a string t") }
        switch message {
        case .hello(let h):
            require(t == "hello" && index == 0 && !helloSeen, "hello at \(index) (helloSeen \(helloSeen), t \(show(t)))")
            require(h.version == 1 && object["v"]?.integerValue == 1, "accepted hello version \(show(object["v"]))")
            require(h.ack >= 0, "negative hello ack \(h.ack)")
            if case .string(let token)? = object["token"] {
                require(sameText(h.token, token), "token changed")
            } else {
                require(h.token == nil && object["token"] == nil, "token \(show(object["token"])) read as \(h.token ?? "nil")")
            }
            if case .string(let auth)? = object["auth"] {
                require(sameText(h.auth, auth), "auth changed")
            } else {
                require(h.auth == nil && object["auth"] == nil, "auth \(show(object["auth"])) read as \(h.auth ?? "nil")")
            }
        case .call(let c):
            require(t == "call", "t \(show(t)) decoded as call")
            require(c.id >= 1 && object["id"]?.integerValue == c.id, "call id \(c.id) from \(show(object["id"]))")
            guard case .string(let method)? = object["method"] else { fatalError("call without a string method") }
            require(sameText(c.method, method), "method changed")
            require(identical(c.arg, object["arg"]), "arg changed")
        case .cancel(let id):
            require(t == "cancel" && object["id"]?.integerValue == id, "cancel \(id) from \(show(object["id"]))")
        case .ack(let seq):
            require(t == "ack" && object["seq"]?.integerValue == seq, "ack \(seq) from \(show(object["seq"]))")
        }
        if !helloSeen && index == 0 {
            if case .hello = message {} else { fatalError("first frame accepted without hello first") }
        }
    }
}

func sameMessages(_ a: [PageMessage], _ b: [PageMessage]) -> Bool {
    guard a.count == b.count else { return false }
    for (x, y) in zip(a, b) {
        switch (x, y) {
        case (.hello(let p), .hello(let q)):
            guard p.version == q.version, p.ack == q.ack, sameText(p.token, q.token), sameText(p.auth, q.auth) else { return false }
        case (.call(let p), .call(let q)):
            guard p.id == q.id, sameText(p.method, q.method) else { return false }
            switch (p.arg, q.arg) {
            case (nil, nil): break
            case (let u?, let v?): guard survives(u, as: v) else { return false }
            default: return false
            }
        case (.cancel(let i), .cancel(let j)), (.ack(let i), .ack(let j)):
            guard i == j else { return false }
        default:
            return false
        }
    }
    return true
}

// MARK: - Method names and routes

struct RootAPI: ExposedInterface {
    static let exposedMethods: [String: ExposedMethodKind] = ["echo": .synchronous, "testAsyn": .asynchronous]
    func callSynchronousMethod(named name: String, with argument: JSONValue) async throws -> JSONValue { .null }
    func callAsynchronousMethod(named name: String, with argument: JSONValue, completion: ExposedCompletion) async throws {}
}

struct NestedAPI: ExposedInterface {
    static let exposedMethods: [String: ExposedMethodKind] = ["c": .synchronous]
    func callSynchronousMethod(named name: String, with argument: JSONValue) async throws -> JSONValue { .null }
    func callAsynchronousMethod(named name: String, with argument: JSONValue, completion: ExposedCompletion) async throws {}
}

struct AccentedAPI: ExposedInterface {
    static let exposedMethods: [String: ExposedMethodKind] = ["th\u{E9}": .asynchronous]
    func callSynchronousMethod(named name: String, with argument: JSONValue) async throws -> JSONValue { .null }
    func callAsynchronousMethod(named name: String, with argument: JSONValue, completion: ExposedCompletion) async throws {}
}

/// (namespace, method, kind) as registered, compared by bytes.
let registered: [(String, String, ExposedMethodKind)] = [
    ("", "echo", .synchronous), ("", "testAsyn", .asynchronous), ("a.b", "c", .synchronous),
    ("caf\u{E9}", "th\u{E9}", .asynchronous),
]

let registry: InterfaceRegistry = {
    let r = InterfaceRegistry()
    r.addInterface(RootAPI())
    r.addInterface(NestedAPI(), by: "a.b")
    r.addInterface(AccentedAPI(), by: "caf\u{E9}")
    return r
}()

/// PROTOCOL.md 2.2 on bytes: a name that is empty, starts or ends with `.`, contains `..` or
/// whitespace is invalid; else the namespace is everything before the last dot.
func expectedSplit(_ text: String) -> (namespace: [UInt8], name: [UInt8])? {
    let b = Array(text.utf8)
    let dot = UInt8(ascii: ".")
    guard let first = b.first, let last = b.last, first != dot, last != dot else { return nil }
    for i in 1..<b.count where b[i] == dot && b[i - 1] == dot { return nil }
    if text.unicodeScalars.contains(where: { $0.properties.isWhitespace }) { return nil }
    guard let lastDot = b.lastIndex(of: dot) else { return ([], b) }
    return (Array(b[..<lastDot]), Array(b[(lastDot + 1)...]))
}

func fuzzMethodName(_ payload: [UInt8]) {
    checkName(String(decoding: payload, as: UTF8.self))
}

func checkName(_ text: String) {
    let expected = expectedSplit(text)
    let name = MethodName(text)
    switch (name, expected) {
    case (nil, nil): break
    case (let n?, nil): fatalError("invalid name \(show(text)) resolved as \(show(n.namespace)) / \(show(n.name))")
    case (nil, _?): fatalError("valid name \(show(text)) refused")
    case (let n?, _?) where knownBugs.contains("method-split") && !n.description.utf8.elementsEqual(text.utf8):
        return  // the split is wrong, so is the route: known bug, not checked further
    case (let n?, let e?):
        require(
            n.namespace.utf8.elementsEqual(e.namespace) && n.name.utf8.elementsEqual(e.name),
            "\(show(text)) resolved as namespace \(show(n.namespace)) method \(show(n.name)), expected \(show(e.namespace)) / \(show(e.name))")
        require(n.description.utf8.elementsEqual(text.utf8), "\(show(text)) joins back as \(show(n.description))")
        require(n.isInternal == e.namespace.elementsEqual("_dsb".utf8), "isInternal wrong for \(show(text))")
    }

    let route = Result { () throws(CallFailure) in try CallRoute.resolve(text, in: registry) }
    guard let e = expected else {
        guard case .failure(let f) = route, f.kind == .methodNotFound else { fatalError("invalid name \(show(text)) routed") }
        return
    }
    let nameText = String(decoding: e.name, as: UTF8.self)
    if e.namespace.elementsEqual("_dsb".utf8) {
        let known = InternalMethod.allCases.first { $0.rawValue.utf8.elementsEqual(e.name) }
        switch (route, known) {
        case (.success(.internalMethod(let m)), let k?): require(m == k, "\(show(text)) routed to \(m)")
        case (.failure(let f), nil): require(f.kind == .methodNotFound, "\(show(text)) failed with \(f.kind)")
        default: fatalError("internal name \(show(text)) routed wrongly (known: \(String(describing: known)))")
        }
        return
    }
    let entry = registered.first { $0.0.utf8.elementsEqual(e.namespace) && $0.1.utf8.elementsEqual(e.name) }
    switch (route, entry) {
    case (.success(.synchronous(_, let n)), let r?):
        require(r.2 == .synchronous && sameText(n, nameText), "\(show(text)) routed as sync \(show(n))")
    case (.success(.asynchronous(_, let n)), let r?):
        require(r.2 == .asynchronous && sameText(n, nameText), "\(show(text)) routed as async \(show(n))")
    case (.failure(let f), nil):
        require(f.kind == .methodNotFound, "\(show(text)) failed with \(f.kind)")
    case (.success, nil):
        if knownBugs.contains("route-alias") { break }
        fatalError("unregistered name \(show(text)) was routed to a method")
    default:
        fatalError("registered name \(show(text)) was not routed")
    }
}

// MARK: - Sync calls (POST /dsbridge/call)

/// PROTOCOL.md 4: `X-DSBridge-After` is `0|[1-9][0-9]*` up to 2^53-1.
func expectedAfter(_ header: [UInt8]) -> Int64? {
    guard !header.isEmpty, header.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
    if header.count > 1 && header[0] == UInt8(ascii: "0") { return nil }
    var v: UInt64 = 0
    for c in header {
        let (m, o1) = v.multipliedReportingOverflow(by: 10)
        let (s, o2) = m.addingReportingOverflow(UInt64(c - UInt8(ascii: "0")))
        if o1 || o2 { return nil }
        v = s
    }
    return v <= (1 << 53) - 1 ? Int64(v) : nil
}

func fuzzSyncCall(_ payload: [UInt8], withHeader: Bool, maxDepth: Int) {
    // Payload: header line, then the body.
    let newline = payload.firstIndex(of: 0x0A) ?? payload.count
    let headerBytes = Array(payload[..<newline])
    let body = newline < payload.count ? Array(payload[(newline + 1)...]) : []
    let header = withHeader ? String(decoding: headerBytes, as: UTF8.self) : nil

    // The header alone, with a body known to be good.
    let good = Array(#"{"method":"m"}"#.utf8)
    let byHeader = try? SyncCallRequest(body: good, afterHeader: header, maxDepth: maxDepth)
    if let header {
        let want = expectedAfter(Array(header.utf8))
        require(
            byHeader?.after == want, "X-DSBridge-After \(show(header)) read as \(String(describing: byHeader?.after)), expected \(String(describing: want))")
    } else {
        require(byHeader?.after == 0, "no X-DSBridge-After header should mean after 0")
    }

    // The body alone.
    let request = Result { () throws(ProtocolViolation) in try SyncCallRequest(body: body, afterHeader: nil, maxDepth: maxDepth) }
    let parsed = try? JSONParser.parse(body, maxDepth: maxDepth)
    switch (request, parsed) {
    case (.success(let r), .object(let members)?):
        guard case .string(let method)? = members["method"] else { fatalError("accepted a body without a string method") }
        require(sameText(r.method, method) && identical(r.arg, members["arg"]) && r.after == 0, "body fields changed")
    case (.success, _):
        fatalError("accepted a body that is not a JSON object: \(show(body))")
    case (.failure, .object(let members)?):
        if case .string? = members["method"] { fatalError("refused a good body: \(show(body))") }
    case (.failure, _):
        break
    }

    // The answers are JSON the page can read back.
    let value = parsed ?? .string(String(decoding: body, as: UTF8.self))
    checkAnswer(SyncCallRequest.answerBody(.success(value)), code: 0, data: value, failure: nil)
    let failure = CallFailure(.failed, String(decoding: headerBytes, as: UTF8.self))
    checkAnswer(SyncCallRequest.answerBody(.failure(failure)), code: -1, data: .string(""), failure: failure)
}

func checkAnswer(_ bytes: [UInt8], code: Int64, data: JSONValue, failure: CallFailure?) {
    guard case .object(let o)? = try? JSONParser.parse(bytes, maxDepth: .max) else {
        fatalError("sync answer is not a JSON object: \(show(bytes))")
    }
    require(o["code"] == .integer(code), "sync answer code \(show(o["code"]))")
    require(o["data"].map { survives(data, as: $0) } ?? false, "sync answer data \(show(o["data"])) for \(show(data))")
    checkError(o, failure, in: bytes)
    require(Array(o.keys) == (failure == nil ? ["code", "data"] : ["code", "data", "error"]), "sync answer keys \(Array(o.keys))")
}

func checkError(_ o: JSONObject, _ failure: CallFailure?, in bytes: [UInt8]) {
    guard let failure else {
        require(o["error"] == nil, "unexpected error member in \(show(bytes))")
        return
    }
    guard case .object(let e)? = o["error"], case .string(let kind)? = e["kind"], case .string(let message)? = e["message"],
        e.count == 2
    else { fatalError("bad error member in \(show(bytes))") }
    require(kind == failure.kind.rawValue && sameText(message, failure.message), "error member changed in \(show(bytes))")
}

// MARK: - Server messages

/// Every server message encodes to one JSON object with exactly its documented members
/// (PROTOCOL.md 2.1, 2.3), whatever strings and values it carries.
func fuzzServerMessages(_ payload: [UInt8]) {
    let text = String(decoding: payload, as: UTF8.self)
    let value = (try? JSONParser.parse(payload, maxDepth: 128)) ?? .string(text)
    let h = fnv1a(payload)
    let id = Int64(bitPattern: h)
    let seq = Int64(bitPattern: h &* 0x9E37_79B9_7F4A_7C15)
    let flag = h & 1 == 0
    let failure = CallFailure(h & 2 == 0 ? .failed : .badArgument, text)

    func check(_ m: ServerMessage, _ keys: [String], _ more: (JSONObject, [UInt8]) -> Void) {
        let bytes = m.encoded(seq: seq)
        guard case .object(let o)? = try? JSONParser.parse(bytes, maxDepth: .max) else {
            fatalError("\(m) encodes to something that is not a JSON object: \(show(bytes))")
        }
        require(Array(o.keys) == keys, "members \(Array(o.keys)), expected \(keys) in \(show(bytes))")
        if m.isSequenced { require(o["seq"] == .integer(seq), "seq \(show(o["seq"])) for \(seq)") }
        more(o, bytes)
    }

    check(.ret(id: id, result: .success(value)), ["t", "seq", "id", "code", "data"]) { o, _ in
        require(o["t"] == "ret" && o["id"] == .integer(id) && o["code"] == .integer(0), "ret fields")
        require(o["data"].map { survives(value, as: $0) } ?? false, "ret data \(show(o["data"])) for \(show(value))")
    }
    check(.ret(id: id, result: .failure(failure)), ["t", "seq", "id", "code", "data", "error"]) { o, b in
        require(o["code"] == .integer(-1) && o["data"] == .string(""), "failed ret fields")
        checkError(o, failure, in: b)
    }
    check(.cb(stub: text, payload: .value(value, complete: flag)), ["t", "seq", "stub", "data", "complete"]) { o, _ in
        require(o["t"] == "cb" && sameText(o["stub"]?.stringValue, text) && o["complete"] == .bool(flag), "cb fields")
        require(o["data"].map { survives(value, as: $0) } ?? false, "cb data \(show(o["data"])) for \(show(value))")
    }
    check(.cb(stub: text, payload: .failure(failure)), ["t", "seq", "stub", "complete", "error"]) { o, b in
        require(o["complete"] == .bool(true), "failed cb is not complete")
        checkError(o, failure, in: b)
    }
    check(.cb(stub: text, payload: .cancelled), ["t", "seq", "stub", "complete", "cancelled"]) { o, _ in
        require(o["complete"] == .bool(true) && o["cancelled"] == .bool(true), "cancelled cb fields")
    }
    check(.invoke(callbackId: id, method: text, args: [value, .null]), ["t", "seq", "callbackId", "method", "args"]) { o, _ in
        require(o["t"] == "invoke" && o["callbackId"] == .integer(id) && sameText(o["method"]?.stringValue, text), "invoke fields")
        guard case .array(let args)? = o["args"], args.count == 2, survives(value, as: args[0]), args[1] == .null else {
            fatalError("invoke args \(show(o["args"])) for \(show(value))")
        }
    }
    let heartbeat = Int(truncatingIfNeeded: seq)
    check(
        .welcome(session: text, token: String(text.reversed()), lastCall: id, resumed: flag, heartbeatMs: heartbeat),
        ["t", "session", "token", "lastCall", "resumed", "heartbeat"]
    ) { o, _ in
        require(o["t"] == "welcome" && sameText(o["session"]?.stringValue, text), "welcome session")
        require(sameText(o["token"]?.stringValue, String(text.reversed())), "welcome token")
        require(o["lastCall"] == .integer(id) && o["resumed"] == .bool(flag) && o["heartbeat"] == .integer(Int64(heartbeat)), "welcome fields")
        require(o["seq"] == nil, "welcome has a seq")
    }
    check(.heartbeat, ["t"]) { o, _ in require(o["t"] == "hb", "hb") }
}

// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeRedis

/// The answer of ``ClusterScripts/claim``, read into a snapshot. Pure: tested with literal
/// replies.
enum ClaimReply: Equatable {
    /// No session has this token (or its record is gone).
    case none
    /// The page acknowledged a `seq` the journal does not hold: refuse rather than replay
    /// wrong numbers.
    case stale
    /// Claimed: the session's state, the new epoch, the previous owner.
    case claimed(Claimed)

    struct Claimed: Equatable {
        var snapshot: SessionSnapshotParts
        var epoch: Int
        var previousNode: String
    }

    /// What the reply holds, before the bridge makes a ``SessionSnapshot`` of it (the token
    /// is the page's: the journal keeps only its hash).
    struct SessionSnapshotParts: Equatable {
        var id: String
        var peerAddress: String
        var origin: String?
        var createdAtMs: Int64
        var tags: [String]
        var ready: Bool
        var lastCall: Int64
        var lastSeq: Int64
        var acked: Int64
        var nextCallbackId: Int64
        var messages: [JournalMessage]
        var run: [RunRecord]
        var nativeCalls: [NativeCallRecord]
        var held: [HeldRecord]
        var late: [LateMessage]
        var lostNodes: Set<String>

        func snapshot(token: String) -> SessionSnapshot {
            var s = SessionSnapshot(
                identity: SessionIdentity(
                    id: id, token: token, peerAddress: peerAddress, origin: origin, createdAtMs: createdAtMs))
            s.tags = tags
            s.ready = ready
            s.lastCall = lastCall
            s.lastSeq = lastSeq
            s.acked = acked
            s.nextCallbackId = nextCallbackId
            s.messages = messages
            s.run = run.map { ($0.id, $0.node, $0.entry) }
            s.nativeCalls = nativeCalls.map { ($0.callbackId, $0.origin) }
            s.held = held.map { ($0.callbackId, $0.tail) }
            s.late = late
            s.lostNodes = lostNodes
            return s
        }
    }

    struct RunRecord: Equatable {
        var id: Int64
        var node: String
        var entry: RunEntry
    }

    struct NativeCallRecord: Equatable {
        var callbackId: Int64
        var origin: String
    }

    struct HeldRecord: Equatable {
        var callbackId: Int64
        var tail: [UInt8]
    }

    /// Why a reply could not be read (a script and a node out of step).
    struct Malformed: Error, Equatable {
        let reason: String
    }

    init(_ reply: RedisValue) throws(Malformed) {
        guard let parts = reply.arrayValue, let status = parts.first?.stringValue else {
            throw Malformed(reason: "claim answered \(reply)")
        }
        switch status {
        case "none": self = .none
        case "stale": self = .stale
        case "ok":
            guard parts.count == 11, let id = parts[1].stringValue, let flat = parts[2].arrayValue,
                let log = parts[3].arrayValue, let run = parts[4].arrayValue, let nc = parts[5].arrayValue,
                let held = parts[6].arrayValue, let late = parts[7].arrayValue, let epoch = parts[8].integerValue,
                let previous = parts[9].stringValue, let lost = parts[10].arrayValue
            else { throw Malformed(reason: "claim answered \(parts.count) parts") }
            let record = try Self.fields(flat)
            func int(_ k: String) -> Int64 { record[k].flatMap { Int64(String(decoding: $0, as: UTF8.self)) } ?? 0 }
            func text(_ k: String) -> String? { record[k].map { String(decoding: $0, as: UTF8.self) } }
            var tags: [String] = []
            if let t = record["tags"], case .array(let a)? = try? JSONParser.parse(t) { tags = a.compactMap { $0.stringValue } }
            var messages: [JournalMessage] = []
            var i = 0
            while i + 1 < log.count {
                guard let bytes = log[i].bytesValue, let seq = log[i + 1].stringValue.flatMap({ Int64($0) }) else {
                    throw Malformed(reason: "log entry \(i / 2)")
                }
                messages.append(JournalMessage(seq: seq, bytes: bytes))
                i += 2
            }
            let runRecords = try Self.pairs(run).map { (key, value) throws(Malformed) -> RunRecord in
                guard let id = Int64(String(decoding: key, as: UTF8.self)),
                    let parsed = JournalArguments.parseRunValue(String(decoding: value, as: UTF8.self))
                else { throw Malformed(reason: "run entry") }
                return RunRecord(id: id, node: parsed.node, entry: parsed.entry)
            }
            let calls = try Self.pairs(nc).map { (key, value) throws(Malformed) -> NativeCallRecord in
                guard let id = Int64(String(decoding: key, as: UTF8.self)) else { throw Malformed(reason: "native call") }
                return NativeCallRecord(callbackId: id, origin: String(decoding: value, as: UTF8.self))
            }
            let heldRecords = try Self.pairs(held).map { (key, value) throws(Malformed) -> HeldRecord in
                guard let id = Int64(String(decoding: key, as: UTF8.self)) else { throw Malformed(reason: "held invoke") }
                return HeldRecord(callbackId: id, tail: value)
            }
            let lateMessages = try late.map { item throws(Malformed) -> LateMessage in
                guard let bytes = item.bytesValue, let m = LateItem.decode(bytes) else { throw Malformed(reason: "late item") }
                return m
            }
            let origin = text("origin").flatMap { $0.isEmpty ? nil : $0 }
            let parts = SessionSnapshotParts(
                id: id, peerAddress: text("peer") ?? "", origin: origin, createdAtMs: int("since"), tags: tags,
                ready: text("ready") == "1", lastCall: int("lastCall"), lastSeq: int("lastSeq"), acked: int("acked"),
                nextCallbackId: max(1, int("nextCb")), messages: messages,
                run: runRecords.sorted { $0.id < $1.id }, nativeCalls: calls.sorted { $0.callbackId < $1.callbackId },
                held: heldRecords.sorted { $0.callbackId < $1.callbackId }, late: lateMessages,
                lostNodes: Set(lost.compactMap(\.stringValue)))
            self = .claimed(Claimed(snapshot: parts, epoch: Int(epoch), previousNode: previous))
        default:
            throw Malformed(reason: "claim answered \(status)")
        }
    }

    /// A flat `HGETALL` answer as key/value pairs (keys unique).
    private static func pairs(_ flat: [RedisValue]) throws(Malformed) -> [(key: [UInt8], value: [UInt8])] {
        guard flat.count % 2 == 0 else { throw Malformed(reason: "odd hash answer") }
        var out: [(key: [UInt8], value: [UInt8])] = []
        var i = 0
        while i < flat.count {
            guard let k = flat[i].bytesValue, let v = flat[i + 1].bytesValue else { throw Malformed(reason: "hash field") }
            out.append((k, v))
            i += 2
        }
        return out
    }

    private static func fields(_ flat: [RedisValue]) throws(Malformed) -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        for (k, v) in try pairs(flat) { out[String(decoding: k, as: UTF8.self)] = v }
        return out
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import Testing

@testable import DSBridgeCluster
@testable import DSBridgeRedis

/// The pure parts of the cluster's Redis layout: run-table values, late items, node
/// messages and the journal script's arguments.
@Suite("Cluster codecs")
struct ClusterCodecTests {
    @Test("a run-table entry is stored as NODE|r or NODE|c|STUB and read back, stubs with bars included")
    func runValues() {
        #expect(JournalArguments.runValue(.needsReturn, runner: "a:1") == "a:1|r")
        #expect(JournalArguments.runValue(.needsCompletion(stub: "dscb|7"), runner: "a:1") == "a:1|c|dscb|7")
        #expect(JournalArguments.parseRunValue("a:1|c|dscb|7")?.entry == .needsCompletion(stub: "dscb|7"))
        #expect(JournalArguments.parseRunValue("a:1|c|dscb|7")?.node == "a:1")
        #expect(JournalArguments.parseRunValue("n|r")?.entry == .needsReturn)
        #expect(JournalArguments.parseRunValue("n|x") == nil)
        #expect(JournalArguments.parseRunValue("nobar") == nil)
    }

    @Test("a call's origin NODE|REF is read at its first bar; without a node or a number it is refused")
    func callOrigins() {
        let plain = CallOrigin(parsing: "n1|42")
        #expect(plain?.node == "n1")
        #expect(plain?.ref == 42)
        let withPort = CallOrigin(parsing: "host:8080|-7")
        #expect(withPort?.node == "host:8080")
        #expect(withPort?.ref == -7)
        #expect(CallOrigin(parsing: "a|1|2") == nil, "the number is all that follows the first bar")
        for bad in ["", "n1", "n1|", "|5", "n1|x", "n1| 5", "n1|99999999999999999999"] {
            #expect(CallOrigin(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("a late item keeps its kind, tail and run change (with the node that runs the call)")
    func lateItems() throws {
        let tail = Array(#","id":5,"code":0,"data":"é\"x"}"#.utf8)
        let late = LateMessage(message: SequencedMessage(kind: .ret, tail: tail), run: RunChange(id: 5, entry: nil))
        #expect(LateItem.decode(LateItem.encode(late, runner: "a")) == late)
        let open = LateMessage(
            message: SequencedMessage(kind: .cb, tail: Array(#","stub":"s","data":1,"complete":false}"#.utf8)),
            run: RunChange(id: 9, entry: .needsCompletion(stub: "s")))
        let decoded = try #require(LateItem.decode(LateItem.encode(open, runner: "a")))
        #expect(decoded.run == RunChange(id: 9, entry: .needsCompletion(stub: "s"), runner: "a"))
        #expect(decoded.message.bytes(seq: 12) == Array(#"{"t":"cb","seq":12,"stub":"s","data":1,"complete":false}"#.utf8))
        #expect(LateItem.decode(Array("{}".utf8)) == nil)
    }

    @Test("every node message reads back as itself")
    func nodeMessages() {
        let messages: [NodeMessage] = [
            .call(session: "s", method: "m", args: RawJSON([1, "x"]), timeoutMs: 30, origin: "a|4"),
            .call(session: "s\"é", method: "n.m", args: RawJSON([]), timeoutMs: 0, origin: "a b|-1"),
            .answer(ref: 4, event: .progress(["p": 1])),
            .answer(ref: 4, event: .completed(.null)),
            .answer(ref: 4, event: .failed(.javaScript("boom"))),
            .answer(ref: 4, event: .failed(.sessionEnded)),
            .answer(ref: 4, event: .failed(.timeout)),
            .answer(ref: 4, event: .failed(.tooLarge(bytes: 99))),
            .refused(ref: 4, status: 503),
            .list(req: 1, from: "b"),
            .listed(req: 1, node: "a", sessions: [["session": "s"]]),
            .group(req: 2, from: "b", sessions: ["s", "t"], method: "m", args: [], timeoutMs: 10),
            .grouped(req: 2, results: [["session": "s", "node": "a", "status": 200, "body": ["data": 1]]]),
            .sync(req: 3, from: "b", token: "t", body: #"{"method":"m"}"#, after: "7"),
            .sync(req: 3, from: "b", token: "t", body: "{}", after: nil),
            .metrics(req: 4, from: "a"),
            .metricsText(req: 4, text: "# HELP x y\nx 1\n"),
            .metricsText(req: 4, text: nil),
            .sync(req: 3, from: "b", token: "t", body: "{}", after: nil, traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
            .synced(req: 3, body: #"{"code":0,"data":1}"#),
            .synced(req: 3, body: nil),
            .moved(session: "s"),
            .late(session: "s"),
        ]
        for m in messages { #expect(NodeMessage(decoding: m.encoded()) == m) }
        #expect(NodeMessage(decoding: Array(#"{"t":"nope"}"#.utf8)) == nil)
        #expect(NodeMessage(decoding: Array("not json".utf8)) == nil)
    }

    @Test("calls and answers are read from their text as a parser reads them: escapes, spaces, a repeated member's last value")
    func callsReadFromText() throws {
        func read(_ text: String) -> NodeMessage? { NodeMessage(decoding: Array(text.utf8)) }
        let call = read(
            #" { "t" : "call", "session":"s\u00e9\"", "method":"m", "args" : [ 1, {"a" : "\n"} ] , "timeoutMs":5, "origin":"a|1", "timeoutMs": 7 } "#)
        guard case .call(let session, let method, let args, let timeoutMs, let origin)? = call else {
            Issue.record("not read: \(String(describing: call))")
            return
        }
        #expect(session == "sé\"" && method == "m" && timeoutMs == 7 && origin == "a|1")
        #expect(String(decoding: args.bytes, as: UTF8.self) == #"[ 1, {"a" : "\n"} ]"#, "args kept as they came")
        #expect(try args.value() == [1, ["a": "\n"]])
        #expect(read(#"{"t":"call","session":"s","method":"m","args":{"a":1},"timeoutMs":5,"origin":"a|1"}"#) == nil, "args not an array")
        #expect(read(#"{"t":"call","session":"s","method":"m","args":[1],"timeoutMs":"5","origin":"a|1"}"#) == nil)
        #expect(read(#"{"t":"call","session":"s","method":"m","args":[1,],"timeoutMs":5,"origin":"a|1"}"#) == nil, "not JSON")
        #expect(read(#"{"t":"answer","ref":3,"progress":null}"#) == .answer(ref: 3, event: .progress(.null)))
        #expect(read(#"{"ref":3,"completed":[{"x":1.5}],"t":"answer"}"#) == .answer(ref: 3, event: .completed([["x": 1.5]])))
        #expect(read(#"{"t":"answer","ref":3,"failed":"later"}"#) == nil)
        #expect(read(#"{"t":"answer","failed":"timeout"}"#) == nil, "no ref")
        #expect(read(#"{"t":5}"#) == nil)
        let batch = Array(#"[{"t":"moved","session":"a"}, {"t":"call"}, {"t":"answer","ref":1,"failed":"timeout"}]"#.utf8)
        #expect(NodeMessage.messages(in: batch) == [.moved(session: "a"), nil, .answer(ref: 1, event: .failed(.timeout))])
    }

    @Test("answers are written as the object form reads: exact text")
    func answerText() {
        func text(_ event: NativeCallEvent) -> String { String(decoding: NodeMessage.answer(ref: -3, event: event).encoded(), as: UTF8.self) }
        #expect(text(.completed(["x": [1, "a\n"]])) == #"{"t":"answer","ref":-3,"completed":{"x":[1,"a\n"]}}"#)
        #expect(text(.progress(.null)) == #"{"t":"answer","ref":-3,"progress":null}"#)
        #expect(text(.failed(.javaScript("q\""))) == #"{"t":"answer","ref":-3,"javaScript":"q\""}"#)
        #expect(text(.failed(.sessionEnded)) == #"{"t":"answer","ref":-3,"failed":"sessionEnded"}"#)
        #expect(text(.failed(.timeout)) == #"{"t":"answer","ref":-3,"failed":"timeout"}"#)
        #expect(text(.failed(.tooLarge(bytes: 12))) == #"{"t":"answer","ref":-3,"tooLarge":12}"#)
    }

    @Test("a creating batch's arguments: head, identity, then the sections, one command each, counted in arguments")
    func journalArguments() {
        var batch = JournalBatch.forTests(session: "sid")
        batch.created = SessionIdentity(id: "sid", token: "tok", peerAddress: "1.2.3.4", origin: nil, createdAtMs: 7)
        batch.messages = [JournalMessage(seq: 1, bytes: [65], run: RunChange(id: 3, entry: nil))]
        batch.lastSeq = 1
        batch.accepted = [3]
        batch.lastCall = 3
        batch.tags = ["room:7"]
        let args = JournalArguments.round(node: "a", runner: "a#9", ttlMs: 1000, batches: [(batch, 2)]).map {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(
            args == [
                "a", "1000", "1",
                "sid", "2", "c", "1", "3", "", "", "", #"["room:7"]"#, "0", "tok", "", "1.2.3.4", "7",
                "2", "1", "A",
                "0", "0",
                "0", "0",
                "0", "0",
            ], "call 3's acceptance, then its ret's deletion of the entry (a call that ran ahead): nothing to write in the run table")
    }

    @Test("the round as sent (RESP written directly) is EVALSHA, the script, 0, then exactly the arguments of the list form")
    func journalCommandMatchesArguments() {
        var created = JournalBatch.forTests(session: "s1")
        created.created = SessionIdentity(id: "s1", token: "t", peerAddress: "::1", origin: "https://o", createdAtMs: 1_700_000_000_000)
        created.accepted = [1, 2]
        created.lastCall = 2
        var answers = JournalBatch.forTests(session: "s2")
        answers.messages = [
            JournalMessage(seq: 9, bytes: Array(#"{"t":"ret","seq":9}"#.utf8), run: RunChange(id: 4, entry: .needsCompletion(stub: "cb|4"))),
            JournalMessage(seq: 10, bytes: [0, 255, 13, 10], run: RunChange(id: 5, entry: nil, runner: "b#2")),
        ]
        answers.lastSeq = 10
        answers.acked = 8
        answers.ready = true
        answers.nextCallbackId = 3
        answers.nativeCalls = [(1, "a|1"), (2, nil)]
        answers.held = [(2, Array(",\"x\":1}".utf8))]
        answers.lateConsumed = 1
        let batches = [(batch: created, epoch: 1), (batch: answers, epoch: 3)]
        var sent: [UInt8] = []
        RESPEncoding.append(JournalArguments.command(node: "a", runner: "a#1", ttlMs: 70_000, batches: batches), to: &sent)
        var expected: [UInt8] = []
        let head = [Array("EVALSHA".utf8), Array(ClusterScripts.journalScript.sha1.utf8), Array("0".utf8)]
        RESPEncoding.append(
            RedisCommand(arguments: head + JournalArguments.round(node: "a", runner: "a#1", ttlMs: 70_000, batches: batches)), to: &expected)
        #expect(sent == expected)
    }

    @Test("a hash's changes fold to each field's last one: deleted fields, then fields with values, in order")
    func hashChangesFold() {
        var changes = HashChanges(capacity: 6)
        changes.change(1, to: Array("r".utf8))
        changes.change(2, to: Array("r".utf8))
        changes.change(1, to: Array("c|s".utf8))  // a ret with completions to follow
        changes.change(3, to: nil)
        changes.change(1, to: nil)  // the final cb
        changes.change(4, to: Array("r".utf8))
        let (deleted, set) = changes.folded()
        #expect(deleted == [3, 1])
        #expect(set.map(\.field) == [2, 4])
        #expect(set.map { String(decoding: $0.value, as: UTF8.self) } == ["r", "r"])
        // The same with more fields than the pairwise check handles (a set of the seen ones).
        var many = HashChanges(capacity: 41)
        for id in 1...40 { many.change(Int64(id), to: Array("r".utf8)) }
        many.change(7, to: nil)
        let folded = many.folded()
        #expect(folded.deleted == [7])
        #expect(folded.set.map(\.field) == (1...40).filter { $0 != 7 }.map(Int64.init))
    }

    @Test("the sections written, with few changes or many, are the folded changes: deleted fields, then field/value pairs")
    func hashChangesWriteMatchesFold() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<400 {
            let n = round < 300 ? Int.random(in: 1...16, using: &generator) : Int.random(in: 17...60, using: &generator)
            var changes = HashChanges(capacity: n)
            var created: Set<Int64> = []
            for _ in 0..<n {
                let field = Int64.random(in: 1...8, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0 where !created.contains(field):
                    created.insert(field)
                    changes.create(field, with: Array("r\(field)".utf8))
                case 1: changes.change(field, to: nil)
                default: changes.change(field, to: Array("c\(field)".utf8))
                }
            }
            var written: [[UInt8]] = []
            changes.write(to: &written)
            let (deleted, set) = changes.folded()
            var expected: [[UInt8]] = []
            HashChanges.write(deleted: deleted, set: set, to: &expected)
            #expect(written == expected, "round \(round), \(n) changes")
        }
    }

    @Test("a field created and deleted by the same changes is not written at all; one that existed before is deleted")
    func hashChangesCreatedAndDeleted() {
        var changes = HashChanges(capacity: 5)
        changes.create(5, with: Array("r".utf8))  // accepted in this batch
        changes.create(6, with: Array("r".utf8))
        changes.change(4, to: nil)  // accepted in an earlier batch, answered now
        changes.change(5, to: nil)  // answered in the same batch: ran ahead
        changes.change(6, to: Array("c|s".utf8))  // answered with completions to follow
        let (deleted, set) = changes.folded()
        #expect(deleted == [4])
        #expect(set.map(\.field) == [6])
        #expect(set.map { String(decoding: $0.value, as: UTF8.self) } == ["c|s"])
        // Past the pairwise check, the same.
        var many = HashChanges(capacity: 42)
        for id in 1...40 { many.create(Int64(id), with: Array("r".utf8)) }
        many.change(7, to: nil)
        many.change(41, to: nil)
        let folded = many.folded()
        #expect(folded.deleted == [41])
        #expect(folded.set.count == 39)
    }
}

// SPDX-License-Identifier: MIT
import DSBridge
import Testing

@Suite("Outbound log: numbering, batching, acknowledgement, bounds")
struct OutboundLogTests {
    private func ret(_ id: Int64, _ data: JSONValue = "") -> ServerMessage { .ret(id: id, result: .success(data)) }

    @Test("messages are numbered from 1 and pending ones coalesce into one batch frame")
    func batching() throws {
        var log = OutboundLog()
        #expect(try log.append(ret(1)) == 1)
        #expect(try log.append(ret(2)) == 2)
        let taken = log.takeFrame()
        let frame = try #require(taken)
        #expect(
            String(decoding: frame, as: UTF8.self)
                == "[{\"t\":\"ret\",\"seq\":1,\"id\":1,\"code\":0,\"data\":\"\"},{\"t\":\"ret\",\"seq\":2,\"id\":2,\"code\":0,\"data\":\"\"}]")
        #expect(log.takeFrame() == nil)
        _ = try log.append(ret(3))
        let third = log.takeFrame()
        #expect(String(decoding: try #require(third), as: UTF8.self) == "{\"t\":\"ret\",\"seq\":3,\"id\":3,\"code\":0,\"data\":\"\"}")
    }

    @Test("acknowledged messages are dropped; a lower ack is ignored, a higher one clamped")
    func acknowledge() throws {
        var log = OutboundLog()
        for i in 1...5 { _ = try log.append(ret(Int64(i))) }
        _ = log.takeFrame()
        log.acknowledge(3)
        #expect(log.keptCount == 2)
        log.acknowledge(1)
        #expect(log.ackedSeq == 3)
        log.acknowledge(99)
        #expect(log.ackedSeq == 5)
        #expect(log.keptCount == 0)
        #expect(log.keptBytes == 0)
    }

    @Test("rewinding to an ack resends exactly the later messages, in order")
    func rewind() throws {
        var log = OutboundLog(maxBatchBytes: 1 << 20)
        for i in 1...4 { _ = try log.append(ret(Int64(i))) }
        _ = log.takeFrame()
        log.rewind(toAck: 2)
        let taken = log.takeFrame()
        let frame = String(decoding: try #require(taken), as: UTF8.self)
        #expect(frame.hasPrefix("[{\"t\":\"ret\",\"seq\":3,"))
        #expect(frame.contains("\"seq\":4"))
        #expect(!frame.contains("\"seq\":2"))
    }

    @Test("over the message or byte bound the append fails with the bound's name")
    func bounds() throws {
        var log = OutboundLog(maxMessages: 2, maxBytes: 1000)
        _ = try log.append(ret(1))
        _ = try log.append(ret(2))
        #expect(throws: OutboundLog.AppendError.self) { try log.append(ret(3)) }
        log.acknowledge(2)
        _ = try log.append(ret(3))
        var small = OutboundLog(maxMessages: 100, maxBytes: 200)
        #expect(throws: OutboundLog.AppendError.messageTooLarge(bytes: 245)) { try small.append(ret(1, .string(String(repeating: "x", count: 200)))) }
        _ = try small.append(ret(1, .string(String(repeating: "x", count: 100))))
        #expect(throws: OutboundLog.AppendError.self) { try small.append(ret(2, .string(String(repeating: "x", count: 100)))) }
    }

    @Test("a batch frame stays under maxBatchBytes")
    func batchLimit() throws {
        var log = OutboundLog(maxBatchBytes: 200)
        for i in 1...10 { _ = try log.append(ret(Int64(i))) }
        var frames = 0
        while let f = log.takeFrame() {
            #expect(f.count <= 200)
            frames += 1
        }
        #expect(frames > 1)
        #expect(log.sentSeq == 10)
    }
}

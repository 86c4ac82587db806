// SPDX-License-Identifier: MIT

/// Composing the page's messages (PROTOCOL.md 2.1, 2.2, 5), one per frame, at write time.
extension PageClient {
    /// Composes the next message due into `c`; `false` when nothing is due.
    func compose(into c: inout FrameComposer) -> Bool {
        if ackDue, worker.options.piggybackAcks, !worker.options.coalesce, case .call? = outbox.first {
            ackDue = false  // it rides in front of that call, below
        }
        if ackDue {
            ackDue = false
            c.literal(#"{"t":"ack","seq":"#)
            c.integer(highestSeq)
            c.byte(UInt8(ascii: "}"))
            ackedSeq = highestSeq
            lastAckAt = monotonicNanos()
            firstUnackedAt = nil
            return true
        }
        guard let job = outbox.popFirst() else { return false }
        switch job {
        case .hello:
            if isResume, let token {
                c.literal(#"{"t":"hello","v":1,"token":"#)
                c.jsonString(token)
                c.literal(#","ack":"#)
                c.integer(resumeAck)
                c.byte(UInt8(ascii: "}"))
            } else {
                c.literal(#"{"t":"hello","v":1}"#)
            }
        case .call(let kind, let madeAt):
            // --piggyback-acks: an ack due rides in front of the call, in one batch frame
            // (only when the call is a frame of its own: batches do not nest).
            let ackInFront = worker.options.piggybackAcks && !worker.options.coalesce && ready && highestSeq > ackedSeq
            if ackInFront {
                c.literal(#"[{"t":"ack","seq":"#)
                c.integer(highestSeq)
                c.literal("},")
                ackedSeq = highestSeq
                lastAckAt = monotonicNanos()
                firstUnackedAt = nil
            }
            defer { if ackInFront { c.byte(UInt8(ascii: "]")) } }
            let id = takeCallID(kind, madeAt: madeAt)
            c.literal(#"{"t":"call","id":"#)
            c.integer(id)
            switch kind {
            case .echo, .check:
                c.raw(worker.methodMember)
                c.literal(#","arg":{"data":"#)
                c.raw(worker.payload)
                c.literal("}}")
            case .progress:
                c.literal(#","method":"test.progress","arg":{"data":"#)
                c.integer(Int64(worker.options.progressCount))
                c.literal(#","_dscbstub":"dscb"#)
                c.integer(id)
                c.literal(#""}}"#)
            case .trigger:
                c.raw(worker.triggerMember)
                c.literal(#","arg":{"data":{"method":"bench.answer","count":"#)
                c.integer(Int64(worker.options.invokeBatch))
                c.literal(#","args":["#)
                c.raw(worker.payload)
                c.literal("]}}}")
                triggers.append((id: id, madeAt: madeAt, remaining: worker.options.invokeBatch))
            case .dsinit:
                c.literal(#","method":"_dsb.dsinit","arg":{"data":null}}"#)
            case .closePage:
                c.literal(#","method":"_dsb.closePage","arg":{"data":null}}"#)
            case .answer, .otherAnswer:
                c.literal(#","method":"_dsb.returnValue","arg":{"data":null}}"#)
            }
        case .answer(let callbackId, let answer, let madeAt):
            let kind: PageCallKind
            if case .registered = answer { kind = .answer } else { kind = .otherAnswer }
            let id = takeCallID(kind, madeAt: madeAt)
            c.literal(#"{"t":"call","id":"#)
            c.integer(id)
            c.literal(#","method":"_dsb.returnValue","arg":{"data":{"id":"#)
            c.integer(callbackId)
            switch answer {
            case .registered:
                c.literal(#","data":"#)
                c.raw(worker.payload)
                c.literal(#","complete":true}}}"#)
            case .hasMethod(let known):
                c.literal(known ? #","data":true,"complete":true}}}"# : #","data":false,"complete":true}}}"#)
            case .unknown:
                c.literal(#","data":null,"complete":true,"error":"bench: method not registered"}}}"#)
            }
        }
        return true
    }

    /// The next call id (ids go out in increasing order); remembers the call.
    private func takeCallID(_ kind: PageCallKind, madeAt: UInt64) -> Int64 {
        let id = nextCallID
        nextCallID += 1
        pending.insert(PendingCalls.Entry(id: id, sentAt: madeAt, kind: kind))
        return id
    }
}

// SPDX-License-Identifier: MIT
import Testing

@testable import DSBridge

/// ``CountedQueue``: first in, first out, with its count kept beside the storage.
@Suite("CountedQueue: first in, first out, counted")
struct CountedQueueTests {
    @Test("elements come out in the order they went in; the count follows every change")
    func orderAndCount() {
        var q = CountedQueue<Int>()
        #expect(q.isEmpty && q.count == 0)
        #expect(q.popFirst() == nil, "an empty queue gives nothing")
        for i in 1...5 { q.append(i) }
        #expect(q.count == 5)
        #expect(q.popFirst() == 1)
        #expect(q.popFirst() == 2)
        q.append(6)
        #expect(q.count == 4)
        var rest: [Int] = []
        while let next = q.popFirst() { rest.append(next) }
        #expect(rest == [3, 4, 5, 6])
        #expect(q.isEmpty && q.count == 0)
        q.append(7)
        q.append(8)
        q.removeAll()
        #expect(q.isEmpty && q.popFirst() == nil)
    }
}

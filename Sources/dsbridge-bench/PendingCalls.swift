// SPDX-License-Identifier: MIT

/// What a page call was for, so its `ret` and `cb` are handled right.
enum PageCallKind: UInt8 {
    /// `echo.syn` with the payload.
    case echo
    /// `test.progress` with a stub: completes on its final `cb`.
    case progress
    /// `test.pushInvokes`: asks for a batch of invokes.
    case trigger
    /// `_dsb.returnValue` answering a `bench.answer` invoke.
    case answer
    /// `_dsb.returnValue` answering any other invoke.
    case otherAnswer
    case dsinit
    case closePage
    /// `idle`: the one `echo.syn` each held session makes at the end.
    case check
}

/// Calls sent and not finished, by id: a power-of-two ring indexed by id (ids are
/// consecutive, so this almost never collides) with a dictionary for collisions.
struct PendingCalls {
    struct Entry {
        var id: Int64 = 0
        /// When the call (or, for answers, its trigger) was made, monotonic ns.
        var sentAt: UInt64 = 0
        var kind = PageCallKind.echo
    }

    private var ring: [Entry]
    private let mask: Int
    private var overflow: [Int64: Entry] = [:]
    private(set) var count = 0

    /// Room for about `expected` calls in flight without collisions.
    init(expected: Int) {
        var size = 16
        while size < expected * 2 { size <<= 1 }
        ring = Array(repeating: Entry(), count: size)
        mask = size - 1
    }

    mutating func insert(_ entry: Entry) {
        let slot = Int(truncatingIfNeeded: entry.id) & mask
        if ring[slot].id == 0 {
            ring[slot] = entry
        } else {
            overflow[entry.id] = entry
        }
        count += 1
    }

    func find(_ id: Int64) -> Entry? {
        let slot = Int(truncatingIfNeeded: id) & mask
        if ring[slot].id == id, id != 0 { return ring[slot] }
        return overflow.isEmpty ? nil : overflow[id]
    }

    @discardableResult
    mutating func remove(_ id: Int64) -> Entry? {
        let slot = Int(truncatingIfNeeded: id) & mask
        if ring[slot].id == id, id != 0 {
            let e = ring[slot]
            ring[slot].id = 0
            count -= 1
            return e
        }
        guard !overflow.isEmpty, let e = overflow.removeValue(forKey: id) else { return nil }
        count -= 1
        return e
    }
}

// SPDX-License-Identifier: MIT
import DequeModule

/// A first-in, first-out queue that keeps its count beside the reference to its storage:
/// asking whether it is empty does not read the storage, another object, which is cold in
/// memory when a server holds thousands of connections that are each active now and then.
struct CountedQueue<Element> {
    private var elements = Deque<Element>()
    /// Elements queued.
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element) {
        elements.append(element)
        count += 1
    }

    /// Takes the first element, if any.
    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        count -= 1
        return elements.removeFirst()
    }

    mutating func removeAll() {
        elements.removeAll()
        count = 0
    }
}

extension CountedQueue: Sendable where Element: Sendable {}

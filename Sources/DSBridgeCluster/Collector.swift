// SPDX-License-Identifier: MIT
import Synchronization

/// Collects a known number of results from any threads and hands them over once, when the
/// last one came.
final class Collector<Item: Sendable>: Sendable {
    private let state: Mutex<(items: [Item], remaining: Int)>
    private let done: @Sendable ([Item]) -> Void

    init(expecting count: Int, initial: [Item] = [], done: @escaping @Sendable ([Item]) -> Void) {
        state = Mutex((initial, count))
        self.done = done
    }

    func add(_ item: Item) {
        let finished = state.withLock { s -> [Item]? in
            s.items.append(item)
            s.remaining -= 1
            return s.remaining == 0 ? s.items : nil
        }
        if let finished { done(finished) }
    }
}

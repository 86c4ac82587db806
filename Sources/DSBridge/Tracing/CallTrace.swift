// SPDX-License-Identifier: MIT
import DequeModule
import Foundation
import Synchronization

/// A session's recent page → native calls, for the admin page's session detail: kept only
/// while somebody watches the session (``watch(forMilliseconds:now:)``), so a call of an
/// unwatched session costs one load of a process-wide atomic (and a clock read while some
/// session of the process is watched).
public final class CallTrace: Sendable {
    /// One call as the admin page shows it.
    public struct Entry: Sendable, Equatable {
        /// When it ended (or was refused), milliseconds since 1970.
        public let atMs: Int64
        public let method: String
        /// `ok`, or the error kind (`methodNotFound`, `badArgument`, `failed`, `timeout`, `overloaded`).
        public let outcome: String
        /// How long the method took, when it ran.
        public let microseconds: Int64?
    }

    /// Entries kept at most (the newest).
    public static let capacity = 50
    /// The monotonic millisecond until which calls are recorded (0: not watched).
    private let watchedUntil = Atomic<Int64>(0)
    private let entries = Mutex(Deque<Entry>())

    init() {}

    /// The latest ``watchedUntil`` of every trace of the process (0: none was ever watched).
    /// Checked first, so that a call of an unwatched session does not touch its trace (with
    /// thousands of sessions each calling now and then, that was a cache miss per call).
    private static let anyWatchedUntil = Atomic<Int64>(0)

    /// Records calls from now until `milliseconds` later (`now`: the bridge's monotonic clock).
    public func watch(forMilliseconds milliseconds: Int64, now: Int64) {
        let until = now + milliseconds
        watchedUntil.store(until, ordering: .relaxed)
        var latest = Self.anyWatchedUntil.load(ordering: .relaxed)
        while latest < until {
            let (exchanged, original) = Self.anyWatchedUntil.compareExchange(
                expected: latest, desired: until, ordering: .relaxed)
            if exchanged { break }
            latest = original
        }
    }

    /// Whether calls are recorded at `now`.
    func isWatched(now: () -> Int64) -> Bool {
        let anyUntil = Self.anyWatchedUntil.load(ordering: .relaxed)
        guard anyUntil != 0 else { return false }
        let time = now()
        guard time < anyUntil else { return false }
        let until = watchedUntil.load(ordering: .relaxed)
        return until != 0 && time < until
    }

    func record(_ entry: Entry) {
        entries.withLock { e in
            if e.count >= Self.capacity { e.removeFirst() }
            e.append(entry)
        }
    }

    /// The recorded calls, newest first.
    public var recent: [Entry] { entries.withLock { Array($0.reversed()) } }
}

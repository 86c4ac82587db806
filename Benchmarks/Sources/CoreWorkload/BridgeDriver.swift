// SPDX-License-Identifier: MIT
import DSBridge
import Dispatch
import Synchronization

/// Drives one page session through a real ``Bridge`` and ``BridgeConnection`` without a
/// socket: frames go in as the transport would hand them over, and the driver waits for the
/// outbound frames the transport would write. Everything between — the frame decoder, the
/// worker hop, the session, the registry, the `@Exposed` dispatch, the outbound log — is
/// the production code. Use from one thread at a time.
///
/// Each call starts on an idle connection, as on a real network where the page's next call
/// arrives after the answer travelled: the driver waits until the worker has returned before
/// it takes the answer and hands over the next frame. Otherwise a race decides whether a frame finds the worker
/// still busy (and joins its inbox) or idle (and is dispatched anew, 6 mallocs more), and the
/// fewest mallocs per call of a run ranged from 16.7 to 22.1.
public final class BridgeDriver {
    public let bridge: Bridge
    public let connection: BridgeConnection
    private let waker = SemaphoreWaker()
    private let executor = TrackedDispatchExecutor()
    private var nextID: Int64 = 1_000_000_000
    private var retsSinceAck = 0
    private var lastSeq: Int64 = 0

    /// A bridge with ``BenchEchoAPI`` under `echo`, and a session that said `hello`. The
    /// session's call rate is not limited: at the default 20,000 calls a second the driver's
    /// back-to-back calls waited for the rate (a batch of 8 took 400 µs), and the frames
    /// that piled up meanwhile took the cheaper inbox path, so counts varied between runs.
    public init() {
        var configuration = BridgeConfiguration()
        configuration.maxCallsPerSecond = 0
        bridge = Bridge(configuration: configuration, executor: executor)
        bridge.addInterface(BenchEchoAPI(), by: "echo")
        connection = bridge.connect(peerAddress: "127.0.0.1", origin: nil, waker: waker)
        connection.receive(Array(#"{"t":"hello","v":1}"#.utf8))
        executor.waitUntilIdle()
        _ = nextWrite()
        waker.drain()
    }

    /// One `echo.syn` call (object `arg`), up to the bytes of its `ret`.
    @discardableResult
    public func callEcho() -> [UInt8] {
        roundTrip(Self.withID(Fixtures.callObjectFrame, nextCallID()), expecting: 1)
    }

    /// One `echo.fast` call (object `arg`, a `@nonblocking` method run inline), up to its `ret`.
    @discardableResult
    public func callEchoFast() -> [UInt8] {
        roundTrip(Self.withID(Self.fastCallFrame, nextCallID()), expecting: 1)
    }

    /// One `echo.fast` call as the load generator sends it (`bench/min-load.c`, `dsb-load`):
    /// `data` a string of 62 characters, the rest of the frame as dsbridge.js writes it.
    @discardableResult
    public func callEchoFastLoadFrame() -> [UInt8] {
        roundTrip(Self.withID(Self.loadCallFrame, nextCallID()), expecting: 1)
    }

    /// Eight of the load generator's calls as one read of its socket brings them at
    /// saturation (`dsb-load --inflight 8`: eight frames, handed over one after another in
    /// one ``BridgeConnection/receivingFrames(_:)``), up to the frame of their eight `ret`s.
    @discardableResult
    public func callEchoFastLoadRead() -> [UInt8] {
        var frames: [[UInt8]] = []
        frames.reserveCapacity(8)
        for _ in 0..<8 { frames.append(Self.withID(Self.loadCallFrame, nextCallID())) }
        return roundTrip(frames, expecting: 8)
    }

    static let loadCallFrame: [UInt8] = Array(
        (#"{"t":"call","id":1000000000,"method":"echo.fast","arg":{"data":""# + String(repeating: "x", count: 62) + #""}}"#).utf8)

    static let fastCallFrame: [UInt8] = Array(
        #"{"t":"call","id":1000000000,"method":"echo.fast","arg":{"data":\#(Fixtures.payloadText)}}"#.utf8)

    /// One `echo.syn` call with a string `arg`, up to the bytes of its `ret`.
    @discardableResult
    public func callEchoStringArg() -> [UInt8] {
        roundTrip(Self.withID(Fixtures.callStringFrame, nextCallID()), expecting: 1)
    }

    /// One `echo.user` call (a `Codable` parameter and result), up to its `ret`.
    @discardableResult
    public func callUser() -> [UInt8] {
        roundTrip(Self.withID(Self.userCallFrame, nextCallID()), expecting: 1)
    }

    /// A batch of eight `echo.syn` calls, up to all eight `ret`s.
    @discardableResult
    public func callEchoBatch() -> [UInt8] {
        var frame = Fixtures.batchFrame
        Self.patchIDs(&frame, first: nextID, count: 8)
        nextID += 8
        return roundTrip(frame, expecting: 8)
    }

    static let userCallFrame: [UInt8] = Array(
        #"{"t":"call","id":1000000000,"method":"echo.user","arg":{"data":\#(Fixtures.userText)}}"#.utf8)

    private func nextCallID() -> Int64 {
        defer { nextID += 1 }
        return nextID
    }

    /// Hands `frame` over, waits for the worker to return, then takes the writes until
    /// `expecting` messages came back; acknowledges every 64 messages, as a page does, so the
    /// replay buffer stays small. Waiting for the worker first makes the driver's own work
    /// the same in every run: it asks for the answers once, when they are all there (taking
    /// them as they came, its polls and the frames they were batched into varied with timing).
    private func roundTrip(_ frame: [UInt8], expecting: Int) -> [UInt8] {
        // As the transport hands over a read's frames.
        connection.receivingFrames { connection.receive(frame) }
        return takeAnswers(expecting: expecting)
    }

    /// ``roundTrip(_:expecting:)`` of several frames that came in one read.
    private func roundTrip(_ frames: [[UInt8]], expecting: Int) -> [UInt8] {
        connection.receivingFrames {
            for frame in frames { connection.receive(frame) }
        }
        return takeAnswers(expecting: expecting)
    }

    private func takeAnswers(expecting: Int) -> [UInt8] {
        executor.waitUntilIdle()
        var got = 0
        var last: [UInt8] = []
        while got < expecting {
            last = nextWrite()
            got += Self.messageCount(last)
        }
        waker.drain()
        lastSeq += Int64(got)
        retsSinceAck += got
        if retsSinceAck >= 64 {
            retsSinceAck = 0
            connection.receive(Array(#"{"t":"ack","seq":\#(lastSeq)}"#.utf8))
            executor.waitUntilIdle()
            waker.drain()
        }
        return last
    }

    /// Waits for the next frame the transport would write.
    private func nextWrite() -> [UInt8] {
        while true {
            switch connection.nextAction() {
            case .write(let bytes)?: return bytes
            case .close(let code, let reason)?: fatalError("bridge closed the socket: \(code) \(reason)")
            case nil: waker.wait()
            }
        }
    }

    /// Messages in an outbound frame: one, or the elements of a batch.
    static func messageCount(_ frame: [UInt8]) -> Int {
        guard frame.first == UInt8(ascii: "[") else { return 1 }
        var count = 0
        var i = 0
        while i + messageMarker.count <= frame.count {
            if frame[i..<i + messageMarker.count].elementsEqual(messageMarker) { count += 1 }
            i += 1
        }
        return count
    }

    private static let messageMarker: [UInt8] = Array(#"{"t":"#.utf8)
    private static let idMarker: [UInt8] = Array(#""id":"#.utf8)

    /// A copy of `template` (whose call id is the 10-digit `1000000000`) with call id `id`:
    /// one new array per frame, as the transport makes for each frame it reads.
    static func withID(_ template: [UInt8], _ id: Int64) -> [UInt8] {
        var frame = template
        patchIDs(&frame, first: id, count: 1)
        return frame
    }

    /// Rewrites the first `count` 10-digit call ids (`"id":1000000000`) in `frame` with
    /// consecutive ids from `first`.
    static func patchIDs(_ frame: inout [UInt8], first: Int64, count: Int) {
        let marker = idMarker
        var id = first
        var i = 0
        while id < first + Int64(count), i + marker.count + 10 <= frame.count {
            if frame[i..<i + marker.count].elementsEqual(marker) {
                var digits = id
                for d in stride(from: i + marker.count + 9, through: i + marker.count, by: -1) {
                    frame[d] = UInt8(ascii: "0") + UInt8(digits % 10)
                    digits /= 10
                }
                id += 1
                i += marker.count + 10
            } else {
                i += 1
            }
        }
    }
}

/// The production executor (Dispatch's global queue) with the work it runs in a group, so
/// the driver can wait until the worker is done. `async(group:execute:)` is the call
/// `DispatchBridgeExecutor` makes, given a group: no closure of ours wraps the work.
struct TrackedDispatchExecutor: BridgeExecutor {
    private let group = DispatchGroup()
    private let base = DispatchBridgeExecutor()

    func execute(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async(group: group, execute: work)
    }

    func schedule(afterMilliseconds milliseconds: Int, _ work: @escaping @Sendable () -> Void) {
        base.schedule(afterMilliseconds: milliseconds, work)
    }

    var uptimeMilliseconds: Int64 { base.uptimeMilliseconds }

    /// Blocks until the work handed to `execute` so far has finished.
    func waitUntilIdle() {
        group.wait()
    }
}

/// Wakes the driver's thread whenever the bridge says the socket has something to do.
final class SemaphoreWaker: ConnectionWaker {
    private let semaphore = DispatchSemaphore(value: 0)
    /// Wake-ups given and not yet waited for.
    private let pending = Atomic<Int>(0)

    func wake() {
        pending.add(1, ordering: .relaxed)
        semaphore.signal()
    }

    func wait() {
        semaphore.wait()
        pending.subtract(1, ordering: .relaxed)
    }

    /// Takes the wake-ups given so far (the driver has taken what they announced), so the
    /// next `wait` blocks until there is news. Does not sleep: each counted wake-up has
    /// signalled or is about to.
    func drain() {
        while pending.load(ordering: .relaxed) > 0 { wait() }
    }
}

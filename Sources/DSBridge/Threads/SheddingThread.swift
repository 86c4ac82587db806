// SPDX-License-Identifier: MIT
import Dispatch
import Foundation
import Synchronization

/// The thread that runs memory-budget shedding passes (``MemoryBudget``), one at a time,
/// for every bridge of the process. Its own thread rather than Dispatch's global queue:
/// under load that queue is full of frames being processed (the very traffic that crosses
/// the budget), and a pass queued behind them starts late while the count keeps growing.
final class SheddingThread: Sendable {
    static let shared = SheddingThread()

    private let work = Mutex<[@Sendable () -> Void]>([])
    private let signal = DispatchSemaphore(value: 0)

    private init() {
        startNamedThread("dsbridge-shedding", kernelName: "dsbridge-shed") { [self] in loop() }
    }

    /// Runs `body` on the shedding thread, after what is already queued.
    func post(_ body: @escaping @Sendable () -> Void) {
        work.withLock { $0.append(body) }
        signal.signal()
    }

    private func loop() {
        while true {
            signal.wait()
            let batch = work.withLock { w -> [@Sendable () -> Void] in
                let taken = w
                w.removeAll()
                return taken
            }
            for body in batch { body() }
        }
    }
}

// SPDX-License-Identifier: MIT
import CLibWebSockets
import CoreMetrics
import Glibc

/// Accepting on the page port and the admin listener (service thread): connections are
/// taken from dsbridged's own listening sockets and served (ServiceLoop+PlainHTTP; on the
/// page port under TLS through libwebsockets' TLS, ServiceLoop+TLS). The page port's
/// ``AcceptGate`` pauses accepting when descriptors run short (PROTOCOL.md 2.6); the admin
/// listener keeps accepting from the reserve and pauses only while `accept` fails, so that
/// a failing `accept` never spins.
extension ServiceLoop {
    /// Connections taken per readiness event at most (others wait for the next pass, so a
    /// connect storm cannot hold up the sockets already open).
    static let acceptBatch = 64

    /// The listening socket is readable: accepts what waits, up to ``acceptBatch``.
    func acceptPending() {
        guard let listener = pageListener, mainVhost != nil else { return }
        let now = loopNow
        for _ in 0..<Self.acceptBatch {
            let decision: AcceptGate.Decision
            switch listener.acceptOne() {
            case .success(let fd):
                if terminatesTLS || lwsPlainSockets {
                    adoptTLS(fd)
                } else {
                    servePlainHTTP(fd, listener: .page)
                }
                decision = acceptGate.accepted(fd: fd, now: now)
                if decision == .pause { pauseAccepting(now: now, openAtLeast: Int(fd) + 1) }
            case .failure(let failure):
                decision = acceptGate.acceptFailed(errno: failure.errno, now: now)
                if decision == .pause { pauseAccepting(now: now, openAtLeast: descriptorLimit.soft) }
            }
            switch decision {
            case .proceed, .resume, .probe: continue
            case .pause, .drained: return
            }
        }
    }

    /// The admin listener is readable: accepts what waits, up to ``acceptBatch``. It is not
    /// paused for the descriptor reserve (it answers throughout, PROTOCOL.md 2.6), only for
    /// ``AcceptGate/retryMs`` when `accept` fails for lack of descriptors or memory.
    func acceptAdminPending() {
        guard let listener = adminListener else { return }
        let now = loopNow
        for _ in 0..<Self.acceptBatch {
            switch listener.acceptOne() {
            case .success(let fd):
                servePlainHTTP(fd, listener: .admin)
            case .failure(let failure):
                switch adminAcceptGate.acceptFailed(errno: failure.errno, now: now) {
                case .pause:
                    listener.pause()
                    if let retry = adminAcceptGate.retryAt { deadlines.schedule(.adminAcceptRetry, at: retry) }
                    // (At most one line a second, as the page listener's.)
                    if adminAcceptGate.logLine(now: now, openDescriptorsAtLeast: 0, limit: 0) != nil {
                        logger.warning(
                            "admin listener: accept failed (errno \(failure.errno)): no descriptor or memory free; retrying in \(AcceptGate.retryMs) ms")
                    }
                    return
                case .drained:
                    return
                case .proceed, .resume, .probe:
                    continue
                }
            }
        }
    }

    /// The admin listener's pause ran out: it accepts again (a failing `accept` pauses it
    /// again).
    func adminAcceptRetryDue(now: UInt64) {
        // (Its gate's threshold is above every descriptor: the probe always resumes.)
        guard let listener = adminListener, adminAcceptGate.retryDue(now: now) == .probe,
            adminAcceptGate.probed(lowestFree: listener.lowestFreeDescriptor(), now: now) == .resume
        else { return }
        listener.resume()
    }

    /// A connection of the page port closed: if accepting was paused, it may resume.
    func pageConnectionClosed() {
        guard acceptGate.connectionClosed() == .probe else { return }
        probeDescriptors(now: loopNow)
    }

    /// The pause's retry deadline came.
    func acceptRetryDue(now: UInt64) {
        guard acceptGate.retryDue(now: now) == .probe else { return }
        probeDescriptors(now: now)
    }

    /// Resumes accepting if the lowest free descriptor is below the threshold.
    private func probeDescriptors(now: UInt64) {
        guard let listener = pageListener else { return }
        switch acceptGate.probed(lowestFree: listener.lowestFreeDescriptor(), now: now) {
        case .resume:
            listener.resume()
        case .pause:
            if let retry = acceptGate.retryAt { deadlines.schedule(.acceptRetry, at: retry) }
        default:
            break
        }
    }

    private func pauseAccepting(now: UInt64, openAtLeast: Int) {
        pageListener?.pause()
        AcceptMetrics.pauses.increment()
        if let retry = acceptGate.retryAt { deadlines.schedule(.acceptRetry, at: retry) }
        if let line = acceptGate.logLine(now: now, openDescriptorsAtLeast: openAtLeast, limit: descriptorLimit.soft) {
            logger.warning("\(line)")
        }
    }
}

/// Metrics of the page listener.
enum AcceptMetrics {
    static let pauses = Counter(label: "dsbridge_accept_pauses_total")
}

// SPDX-License-Identifier: MIT

/// Hooks the bridge calls as sessions live; each may be called from any thread.
public struct SessionLifecycle: Sendable {
    /// A session was created (by `hello` or `POST /dsbridge/session`). Calls into the page
    /// made here are held until it is ready.
    public var opened: (@Sendable (BridgeSession) -> Void)?
    /// The page signalled `_dsb.dsinit`: its registrations exist; held calls were sent.
    public var ready: (@Sendable (BridgeSession) -> Void)?
    /// The page called `window.close()` (`_dsb.closePage`); DSBridge's dismissal handler.
    /// The session ends right after.
    public var dismissed: (@Sendable (BridgeSession) -> Void)?
    /// The session ended, with the reason.
    public var closed: (@Sendable (BridgeSession, String) -> Void)?

    public init(
        opened: (@Sendable (BridgeSession) -> Void)? = nil,
        ready: (@Sendable (BridgeSession) -> Void)? = nil,
        dismissed: (@Sendable (BridgeSession) -> Void)? = nil,
        closed: (@Sendable (BridgeSession, String) -> Void)? = nil
    ) {
        self.opened = opened
        self.ready = ready
        self.dismissed = dismissed
        self.closed = closed
    }
}

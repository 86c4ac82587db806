// SPDX-License-Identifier: MIT

/// The page a component serves: dsbridged's stand-in for the app's view controller
/// (hotwire-native-ios' `BridgeDestination`).
public final class BridgeDestination: Sendable {
    /// The page session; `nil` once it has ended.
    public weak let session: BridgeSession?

    /// The destination of `session`'s components (held weakly).
    public init(session: BridgeSession?) {
        self.session = session
    }
}

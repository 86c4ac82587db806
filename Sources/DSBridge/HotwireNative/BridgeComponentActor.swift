// SPDX-License-Identifier: MIT

/// The actor every ``BridgeComponent`` runs on: dsbridged's stand-in for the main actor the
/// app's components run on. One serial executor for the components of every page session, so
/// a component's state needs no lock; keep `onReceive(message:)` quick and move long work
/// into a task of its own.
@globalActor
public actor BridgeComponentActor {
    /// The one instance.
    public static let shared = BridgeComponentActor()
}

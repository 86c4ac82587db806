// SPDX-License-Identifier: MIT

extension BridgeSession {
    /// This session's bridge component instances by name: those that have received a
    /// message (none before the page sent one).
    @BridgeComponentActor
    public var bridgeComponents: [String: BridgeComponent] {
        let existing = transition { $0.instance(SessionComponents.factoryID) }
        return (existing as? SessionComponents)?.host.instances ?? [:]
    }
}

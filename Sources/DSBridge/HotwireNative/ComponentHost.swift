// SPDX-License-Identifier: MIT

/// A page session's component instances, by name, on the components' actor.
@BridgeComponentActor
final class ComponentHost {
    let destination: BridgeDestination
    /// Held here; the components hold it weakly, as the app's components hold theirs.
    let delegate: PageReplies
    private(set) var instances: [String: BridgeComponent] = [:]

    nonisolated init(destination: BridgeDestination, delegate: PageReplies) {
        self.destination = destination
        self.delegate = delegate
    }

    /// Hands `message` to the instance of `type` (made now when it is the first message).
    func deliver(_ message: Message, to type: BridgeComponent.Type) {
        let component: BridgeComponent
        if let existing = instances[message.component], Swift.type(of: existing) == type {
            component = existing
        } else {
            component = type.init(destination: destination, delegate: delegate)
            instances[message.component] = component
        }
        component.didReceive(message: message)
    }
}

// SPDX-License-Identifier: MIT

extension Bridge {
    /// Registers a bridge component class (hotwire-native-ios' `Hotwire.registerBridgeComponents`):
    /// pages reach it through web/hotwire.js under `component.name`.
    /// - Throws: ``BridgeComponentNameError`` for an empty or unusable name.
    public func register(component: BridgeComponent.Type) throws(BridgeComponentNameError) {
        try registry.bridgeComponents.register(component)
    }

    /// Registers several bridge component classes, stopping at the first refused name.
    public func register(components: [BridgeComponent.Type]) throws(BridgeComponentNameError) {
        for component in components { try register(component: component) }
    }
}

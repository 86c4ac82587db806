// SPDX-License-Identifier: MIT
import DSBridge

/// The bridge components of hotwire-native-demo's pages (PROTOCOL.md 9.4): `form`, `menu`
/// and `overflow-menu`. They keep what they receive (``BridgeComponent/receivedMessage(for:)``)
/// and reply only when told, through the admin API's
/// `POST /admin/sessions/ID/components/NAME/reply`: a person or a test plays the app's
/// native buttons and menus.
public enum DemoBridgeComponents {
    /// The demo's component classes.
    public static let all: [BridgeComponent.Type] = [DemoFormComponent.self, DemoMenuComponent.self, DemoOverflowMenuComponent.self]

    /// Registers `form`, `menu` and `overflow-menu` on `bridge`.
    public static func register(on bridge: Bridge) {
        // The names are constants checked by the tests: a refusal here is a bug in this file.
        do {
            try bridge.register(components: all)
        } catch {
            preconditionFailure("demo bridge components: \(error)")
        }
    }
}

/// `form`: the page's `connect` carries `submitTitle`; a reply to it clicks the submit button.
final class DemoFormComponent: BridgeComponent {
    override class var name: String { "form" }
}

/// `menu`: `display` carries the title and the enabled items; a reply with
/// `{"selectedIndex": N}` clicks item N.
final class DemoMenuComponent: BridgeComponent {
    override class var name: String { "menu" }
}

/// `overflow-menu`: `connect` carries the label; a reply clicks the page's element.
final class DemoOverflowMenuComponent: BridgeComponent {
    override class var name: String { "overflow-menu" }
}

// SPDX-License-Identifier: MIT
// Typings for dsbridged's web/hotwire.js: Hotwire Native bridge components
// (@hotwired/hotwire-native-bridge) in ordinary browser pages (PROTOCOL.md 9.4).
//
// Loading: <script src="https://server/hotwire.js"></script>, a classic script before the
// app's bundle (data-server, data-auth and window.DSBRIDGE_SERVER / DSBRIDGE_AUTH as for
// dsbridge.js; data-dsbridge names another dsbridge.js URL; data-platform the adapter's
// platform, "web" by default). The page keeps using the library's own API
// (BridgeComponent, this.send); this file types only what hotwire.js adds.

/** What hotwire.js set up: window.hotwireBridge. */
export interface HotwireBridge {
  /** True inside a real Hotwire Native app: the app's adapter is used and nothing else is set up. */
  readonly inApp: boolean;
  /** The adapter's platform (data-bridge-platform on <html>): "web" unless data-platform says otherwise. */
  readonly platform: string | null;
  /** The component names registered on the server (the adapter's supportedComponents). */
  readonly components: string[];
  /** The public id of the page's session (the admin API's ID), null before it opened. */
  readonly session: string | null;
}

declare global {
  interface Window {
    hotwireBridge: HotwireBridge;
  }
}

// SPDX-License-Identifier: MIT
// Typings for dsbridged's web/webkit.js: WKWebView script message handlers for ordinary
// browser pages (PROTOCOL.md 9.2).
//
// Loading: <script src="https://server/webkit.js"></script> (data-server, data-auth and
// window.DSBRIDGE_SERVER / DSBRIDGE_AUTH as for dsbridge.js; data-dsbridge names another
// dsbridge.js URL). Inside a real WKWebView the script steps aside: the app's own
// window.webkit.messageHandlers stays, and webkitBridge is a no-op with inApp: true.

/** A JSON value: what a message body and a reply may be. */
export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };

/** Why a postMessage promise rejected. */
export interface WebkitBridgeError extends Error {
  /**
   * `badArgument` (a TypeError: the body is not JSON; rejected before anything is sent),
   * `methodNotFound` (no native handler of that name), `failed` (the handler threw),
   * `sessionLost`, `closed`, `rejected`, `tooLarge` (as for dsBridge.invoke), `unavailable`
   * (dsbridge.js could not be loaded).
   */
  kind: string;
}

/** One handler name: window.webkit.messageHandlers.NAME. */
export interface ScriptMessageHandler {
  /** Posts `body` to the native handler; resolves with its reply (null when it gives none). */
  postMessage(body: JSONValue): Promise<JSONValue>;
}

export interface WebkitBridge {
  /** True inside a real WKWebView (this script stepped aside). */
  readonly inApp: boolean;
  /** The public session id once the channel is up, else null. */
  readonly session: string | null;
  /**
   * Which page functions native code may call by path (`_page.callFunction`): true (all,
   * the default), false (none: "function calls are forbidden by the page: PATH"), or path
   * prefixes such as ["wadInterface.", "bridge."] (others: "function call not allowed by
   * the page: PATH (allowed prefixes: …)"). Anything else throws a TypeError.
   */
  allowFunctionCalls(rule: boolean | string[]): void;
}

declare global {
  interface Window {
    webkit: { messageHandlers: { [name: string]: ScriptMessageHandler } };
    webkitBridge: WebkitBridge;
  }
}

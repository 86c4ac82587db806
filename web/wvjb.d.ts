// SPDX-License-Identifier: MIT
// Typings for dsbridged's web/wvjb.js: the WebViewJavascriptBridge 6.x page API over
// dsbridged (PROTOCOL.md 9.1). Loading: <script src="https://server/wvjb.js"></script>.

import type { JSONValue } from './dsbridge';

/** Answers a native call of a page handler; the first call wins, later ones are ignored. */
export type WVJBResponseCallback = (responseData?: JSONValue) => void;

/** A page handler native code calls with callHandler / an invoke of _wvjb.handle. */
export type WVJBHandler = (data: JSONValue, responseCallback: WVJBResponseCallback) => void;

export interface WebViewJavascriptBridge {
  /** Registers (or replaces) the handler of `handlerName` (any string). */
  registerHandler(handlerName: string, handler: WVJBHandler): void;
  /**
   * Calls the native handler `handlerName`. `responseCallback` runs once with its response;
   * it is not called when no native handler has that name (a warning is logged) or when the
   * call fails (session lost, connection closed).
   */
  callHandler(handlerName: string, data?: JSONValue, responseCallback?: (responseData: any) => void): void;
  callHandler(handlerName: string, responseCallback: (responseData: any) => void): void;
  /** Runs native calls of page handlers at once instead of on a new task. */
  disableJavscriptAlertBoxSafetyTimeout(): void;
}

declare global {
  interface Window {
    /** Present once the document has been parsed (and dsbridge.js's channel is there). */
    WebViewJavascriptBridge?: WebViewJavascriptBridge;
    /** Setup callbacks queued by the page's setupWebViewJavascriptBridge, run once. */
    WVJBCallbacks?: Array<(bridge: WebViewJavascriptBridge) => void>;
  }
}

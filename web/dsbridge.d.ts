// SPDX-License-Identifier: MIT
// Typings for dsbridged's web/dsbridge.js: the DSBridge 3.1.4 page API over dsbridged, plus
// the promise API (invoke) and connection events (on/off); and for the ES module
// web/dsbridge.mjs (the package "dsbridged-client": `import { dsBridge, invoke } from
// 'dsbridged-client'`), whose exports are declared at the end.
//
// Loading: <script src="https://server/dsbridge.js"></script>. The server is the origin the
// script was loaded from, or window.DSBRIDGE_SERVER ("http://host:port") set before the
// script, or a data-server attribute on the script tag. window.DSBRIDGE_AUTH or data-auth
// supplies the shared secret of a daemon started with --auth-token.
//
// Inside a real DSBridge WebView (window._dsbridge injected by Android, window._dswk set by
// iOS / DSBridge-Swift, or "_dsbridge" in the user agent) the script steps aside: it installs
// the plain 3.1.4 API over the app's bridge (unless the original library already did), opens
// no socket, and invoke() resolves with the first callback value; on/off/reconnect do nothing.

/** A JSON value as it crosses the wire (functions and undefined inside objects are dropped). */
export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };

/**
 * Callback of an asynchronous call. Called once per completion the server delivers
 * (`complete:false` progress values first, then the final value). It is not called when the
 * call ends with an error (a `ret` with code -1, or a `cb` with `error`), when the server
 * refuses it (too large, protocol error), when it is cancelled, when the session is lost or the
 * connection closed for good: then `window.dscbN` is deleted, a warning goes to console.warn
 * and a `callFailed` event fires. Use `invoke()` to observe errors per call.
 */
export type DSCallback<T = any> = (data: T) => void;

/** Responder handed to an asynchronous JavaScript handler as its last argument. */
export type DSResponder<T = any> = (data: T, complete?: boolean) => void;

/** An error from invoke(): `kind` is the protocol's error kind. */
export interface DSBridgeError extends Error {
  /**
   * `methodNotFound`, `badArgument`, `failed`, `timeout`, `overloaded` (from the server),
   * `cancelled` (aborted through the signal or cancelled by the server; `name` is
   * "AbortError"), `sessionLost` (the session ended before the call completed), `tooLarge`
   * (the server closed 1009 on this call alone, or answered HTTP 413: it is never resent),
   * `rejected` (the server closed 4000 on this call alone, e.g. nested deeper than its
   * maxDepth, or refused it over HTTP), `closed` (the connection was closed for good: 1000
   * after close(), 1008, 4009, 4029; see reconnect()).
   */
  kind:
    | 'methodNotFound'
    | 'badArgument'
    | 'failed'
    | 'timeout'
    | 'overloaded'
    | 'cancelled'
    | 'sessionLost'
    | 'tooLarge'
    | 'rejected'
    | 'closed'
    | string;
}

export interface InvokeOptions<P = any> {
  /** Receives every `complete:false` value, in order. */
  onProgress?: (value: P) => void;
  /** Aborting sends `{"t":"cancel","id":N}` and rejects with kind `cancelled`. */
  signal?: AbortSignal;
  /**
   * A W3C trace context (`00-TRACEID-SPANID-FLAGS`, e.g. from the page's OpenTelemetry span):
   * with tracing on, the daemon's span of this call is its child (PROTOCOL.md 2.2).
   */
  traceparent?: string;
}

export interface ConnectedEvent {
  session: string;
  /** True when the socket attached to an existing session (also the first attach of a
   * session created by a synchronous call). */
  resumed: boolean;
}

export interface DisconnectedEvent {
  /**
   * WebSocket close code (PROTOCOL.md 2.5). 1000 (after close()), 1008, 4009 and 4029 stop
   * reconnecting: every pending call then fails with kind `closed`, and so does every later
   * call until reconnect().
   */
  code: number;
  reason: string;
  /** False when the page stopped reconnecting (the codes above). */
  reconnecting: boolean;
}

/** A call with a plain DSBridge callback failed; the callback will not be called. */
export interface CallFailedEvent {
  /** The callback's name (`dscbN`). */
  stub: string;
  /** The method called, when known. */
  method: string | null;
  /** As DSBridgeError.kind. */
  kind: string;
  message: string;
}

export interface SessionLostEvent {
  reason: string;
}

export interface DSBridgeEvents {
  connected: ConnectedEvent;
  disconnected: DisconnectedEvent;
  /** The session ended (4004/4008 or an unknown token): pending callbacks will never fire;
   * a new session is started. */
  sessionLost: SessionLostEvent;
  callFailed: CallFailedEvent;
}

export interface DSBridge {
  /**
   * Calls a native method. Without a callback the call is synchronous (a synchronous
   * XMLHttpRequest) and returns the native value — `""` for an unknown method or a failure,
   * `undefined` when the server cannot be reached or the connection was closed for good. It
   * starts after every call the page made before it (calls still queued in the page are sent
   * first: on the socket, or over HTTP when the socket is not up). With a callback it goes
   * over the WebSocket and returns `""` at once; the callback receives each completion. A
   * method that is not a string is turned into one (as DSBridge's prompt() does).
   * If `args` is a function it is the callback and the argument becomes `{}`.
   */
  call(method: string, callback: DSCallback): '';
  call(method: string, args: any, callback: DSCallback): '';
  call<T = any>(method: string, args?: any): T;

  /** Registers a JavaScript method (or an object as a namespace, e.g. "a.b") for native. */
  register(name: string, fn: (...args: any[]) => any, asyn?: false): void;
  register(name: string, fn: (...args: any[]) => void, asyn: true): void;
  register(name: string, namespace: object, asyn?: boolean): void;

  /** Registers an asynchronous JavaScript method: its last argument is a responder. */
  registerAsyn(name: string, fn: (...args: any[]) => void): void;
  registerAsyn(name: string, namespace: object): void;

  /** Synchronous `_dsb.hasNativeMethod`; type defaults to "all". */
  hasNativeMethod(name: string, type?: 'all' | 'syn' | 'asyn'): boolean;

  /** Synchronous `_dsb.disableJavascriptDialogBlock` (accepted and ignored by dsbridged). */
  disableJavascriptDialogBlock(disable?: boolean): void;

  /** Synchronous `_dsb.closePage`: the server ends the session (window.close does the same). */
  close(): void;

  /**
   * Promise API: resolves with the final value of an asynchronous (or synchronous) native
   * method, reports progress values to `onProgress`, rejects with a DSBridgeError.
   */
  invoke<T = any, P = any>(method: string, args?: any, options?: InvokeOptions<P>): Promise<T>;

  on<K extends keyof DSBridgeEvents>(event: K, listener: (event: DSBridgeEvents[K]) => void): void;
  off<K extends keyof DSBridgeEvents>(event: K, listener: (event: DSBridgeEvents[K]) => void): void;

  /**
   * After the page stopped reconnecting (close(), 1008, 4009, 4029): connects again, with a
   * new session (the same one after 4009, which takes the session back from the other
   * socket). Handlers registered before are announced to the new session. Otherwise, when
   * the socket is down, reconnects now instead of waiting for the backoff.
   */
  reconnect(): void;

  /** The public session id once known (for logs and the admin API), else null. */
  readonly session: string | null;
}

/** Handler tables as dsbridge.js 3.1.4 keeps them. */
export interface DSHandlerTable {
  _obs: { [namespace: string]: { [name: string]: any } };
  [name: string]: any;
}

/** What native passes to window._handleMessageFromNative (DSBridge's shape). */
export interface NativeMessageInfo {
  method: string;
  callbackId: number;
  /** JSON text of an array of arguments. */
  data: string;
}

/**
 * The hook this script installs outside a WebView (whether the original dsbridge.js 3.1.4
 * loads before it, after it, or not at all): the original calls it for every call and gets a
 * `{"code":…,"data":…}` JSON string back.
 */
export interface DSNativeHook {
  call(method: string, argJSON: string): string;
  on: DSBridge['on'];
  off: DSBridge['off'];
  reconnect: DSBridge['reconnect'];
  readonly session: string | null;
}

declare global {
  interface Window {
    dsBridge: DSBridge;
    bridge: DSBridge;
    _dsf: DSHandlerTable;
    _dsaf: DSHandlerTable;
    /** Counter of callback names: dscb0, dscb1, … (page-global, never reset). */
    dscb: number;
    _dsInit?: boolean;
    /** Native entry point; dsbridged's script calls it for each `invoke` (so wrappers see them). */
    _handleMessageFromNative(info: NativeMessageInfo): void;
    /** Ours outside a WebView (see DSNativeHook); Android's injected bridge inside one. */
    _dsbridge?: DSNativeHook;
    /** Set by DSBridge's iOS and Swift WebViews: the script then steps aside. */
    _dswk?: boolean;
    /** Server origin override, set before the script loads. */
    DSBRIDGE_SERVER?: string;
    /** Shared secret for a daemon started with --auth-token. */
    DSBRIDGE_AUTH?: string;
  }
  const dsBridge: DSBridge;
}

// ---------------------------------------------------------------------------------------------
// The ES module (dsbridge.mjs, package "dsbridged-client"). It evaluates dsbridge.js and exports
// its API over the page's one session: the module imported twice, from two bundles, or next to
// a <script src="dsbridge.js"> shares that session. Next to the original npm "dsbridge" 3.1.4
// (imported before or after), `dsBridge` is the module's own object over the same session and
// window.dsBridge stays the original's; otherwise `dsBridge === window.dsBridge`. Inside a real
// DSBridge WebView the exports are the app bridge's API (no socket; configure does nothing).

/** What configure() sets. */
export interface ClientConfiguration {
  /**
   * The daemon: an http(s) or ws(s) URL, of which the origin counts ("https://bridge.example.com").
   * Default: window.DSBRIDGE_SERVER, else the origin the module was loaded from when that is
   * http(s), else the page's origin.
   */
  server?: string;
  /** The shared secret of a daemon started with --auth-token; unset or null: window.DSBRIDGE_AUTH applies. */
  auth?: string | null;
}

/**
 * Sets the server and the shared secret. The server must be set before the page first uses it:
 * the module opens its socket one microtask after it was evaluated, so a call at the top level
 * of the importing module is early enough; a synchronous call fixes the server at once. A
 * different server after that throws an Error; the same one is accepted. `auth` may change at
 * any time (it is read at each use).
 */
export declare function configure(options: ClientConfiguration): void;

/** The DSBridge object: window.dsBridge, unless the original library owns that global. */
export declare const dsBridge: DSBridge;
/** dsBridge.call, callable without `this`. */
export declare const call: DSBridge['call'];
/** dsBridge.register. */
export declare const register: DSBridge['register'];
/** dsBridge.registerAsyn. */
export declare const registerAsyn: DSBridge['registerAsyn'];
/** dsBridge.hasNativeMethod. */
export declare const hasNativeMethod: DSBridge['hasNativeMethod'];
/** dsBridge.disableJavascriptDialogBlock. */
export declare const disableJavascriptDialogBlock: DSBridge['disableJavascriptDialogBlock'];
/** dsBridge.close: ends the session (the page stops reconnecting until reconnect()). */
export declare const close: DSBridge['close'];
/** dsBridge.invoke: the promise API. */
export declare const invoke: DSBridge['invoke'];
/** dsBridge.on: connection events. */
export declare const on: DSBridge['on'];
/** dsBridge.off. */
export declare const off: DSBridge['off'];
/** dsBridge.reconnect. */
export declare const reconnect: DSBridge['reconnect'];
export default dsBridge;

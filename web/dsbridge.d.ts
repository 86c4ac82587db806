// SPDX-License-Identifier: MIT
// Typings for dsbridged's web/dsbridge.js: the DSBridge 3.1.4 page API over dsbridged, plus
// the promise API (invoke) and connection events (on/off).
//
// Loading: <script src="https://server/dsbridge.js"></script>. The server is the origin the
// script was loaded from, or window.DSBRIDGE_SERVER ("http://host:port") set before the
// script, or a data-server attribute on the script tag. window.DSBRIDGE_AUTH or data-auth
// supplies the shared secret of a daemon started with --auth-token.

/** A JSON value as it crosses the wire (functions and undefined inside objects are dropped). */
export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };

/**
 * Callback of an asynchronous call. Called once per completion the server delivers
 * (`complete:false` progress values first, then the final value). It is not called when the
 * call ends with an error (a `ret` with code -1, or a `cb` with `error`), when it is cancelled,
 * or when the session is lost: then `window.dscbN` is deleted and a warning goes to
 * console.warn. Use `invoke()` to observe errors.
 */
export type DSCallback<T = any> = (data: T) => void;

/** Responder handed to an asynchronous JavaScript handler as its last argument. */
export type DSResponder<T = any> = (data: T, complete?: boolean) => void;

/** An error from invoke(): `kind` is the protocol's error kind. */
export interface DSBridgeError extends Error {
  /**
   * `methodNotFound`, `badArgument`, `failed`, `timeout`, `overloaded` (from the server),
   * `cancelled` (aborted through the signal or cancelled by the server; `name` is
   * "AbortError"), or `sessionLost` (the session ended before the call completed).
   */
  kind: 'methodNotFound' | 'badArgument' | 'failed' | 'timeout' | 'overloaded' | 'cancelled' | 'sessionLost' | string;
}

export interface InvokeOptions<P = any> {
  /** Receives every `complete:false` value, in order. */
  onProgress?: (value: P) => void;
  /** Aborting sends `{"t":"cancel","id":N}` and rejects with kind `cancelled`. */
  signal?: AbortSignal;
}

export interface ConnectedEvent {
  session: string;
  /** True when the socket attached to an existing session (also the first attach of a
   * session created by a synchronous call). */
  resumed: boolean;
}

export interface DisconnectedEvent {
  /** WebSocket close code (PROTOCOL.md 2.5). 1000, 1008, 4009 and 4029 stop reconnecting. */
  code: number;
  reason: string;
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
}

export interface DSBridge {
  /**
   * Calls a native method. Without a callback the call is synchronous (a synchronous
   * XMLHttpRequest) and returns the native value — `""` for an unknown method or a failure,
   * `undefined` when the server cannot be reached. With a callback it goes over the WebSocket
   * and returns `""` at once; the callback receives each completion.
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
 * The hook installed when this script is loaded after the original dsbridge.js 3.1.4: the
 * original calls it for every call and gets a `{"code":…,"data":…}` JSON string back.
 */
export interface DSNativeHook {
  call(method: string, argJSON: string): string;
  on: DSBridge['on'];
  off: DSBridge['off'];
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
    /** Native entry point; dsbridged's script calls it for each `invoke`. */
    _handleMessageFromNative(info: NativeMessageInfo): void;
    /** Present only in hook mode (see DSNativeHook). */
    _dsbridge?: DSNativeHook;
    /** Server origin override, set before the script loads. */
    DSBRIDGE_SERVER?: string;
    /** Shared secret for a daemon started with --auth-token. */
    DSBRIDGE_AUTH?: string;
  }
  const dsBridge: DSBridge;
}

declare const bridge: DSBridge;
export default bridge;

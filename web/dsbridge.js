// SPDX-License-Identifier: MIT
// dsbridge.js for dsbridged: a drop-in replacement for DSBridge's dsbridge.js 3.1.4 that talks
// to a dsbridged server instead of an app's WebView (wire contract: PROTOCOL.md, version 1).
//
// Two modes:
// - Alone: installs the DSBridge globals (_dsf, _dsaf, dscb, dsBridge, bridge, close,
//   _handleMessageFromNative) with 3.1.4's API and semantics, plus dsBridge.invoke (promises)
//   and dsBridge.on (connection events).
// - Loaded right after the original dsbridge.js 3.1.4 (window._dsf already set): leaves the
//   original's globals alone and installs window._dsbridge, the native hook the original
//   checks first, so the original library runs unchanged over dsbridged.
//
// Transport: one WebSocket per page session (subprotocol dsbridge.v1) for calls with a
// callback, completions and native-initiated calls; a synchronous XMLHttpRequest to
// POST /dsbridge/call for calls without a callback, which return the native value.
// Plain ES2017, no dependencies; every message is built with JSON.stringify.
(function () {
  'use strict';

  var script = document.currentScript;
  var ownInstalled = window.dsBridge && window.dsBridge.__dsbridged;
  if (ownInstalled || window._dsbridge) return; // loaded twice, or a real native hook exists
  var hookMode = !!window._dsf; // the original dsbridge.js ran first

  // ---------------------------------------------------------------------------------------
  // Configuration

  function attr(name) {
    return script && script.getAttribute ? script.getAttribute(name) : null;
  }

  /** The server's http(s) origin: window.DSBRIDGE_SERVER, data-server, or the script's origin. */
  function serverBase() {
    var configured = window.DSBRIDGE_SERVER || attr('data-server');
    var raw = configured || (script && script.src) || window.location.href;
    try {
      var url = new URL(raw, window.location.href);
      return url.protocol + '//' + url.host;
    } catch (e) {
      return window.location.protocol + '//' + window.location.host;
    }
  }

  var BASE = serverBase();
  var WS_URL = BASE.replace(/^http/, 'ws') + '/dsbridge';
  var AUTH = window.DSBRIDGE_AUTH || attr('data-auth') || null;
  var ACK_EVERY = 64;
  var ACK_DELAY_MS = 250;
  var MAX_BATCH = 256;
  // Calls sent on the socket without their ret yet, at most (PROTOCOL.md 2.2): the page's acks
  // travel behind its calls, so a page far ahead of the server would exceed the replay bound.
  var CALL_WINDOW = 1000;

  function warn() {
    if (window.console && console.warn) {
      var args = Array.prototype.slice.call(arguments);
      args.unshift('[dsbridge]');
      console.warn.apply(console, args);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Events (dsBridge.on / off)

  var listeners = {};

  function on(event, fn) {
    if (typeof fn !== 'function') return;
    (listeners[event] = listeners[event] || []).push(fn);
  }

  function off(event, fn) {
    var list = listeners[event];
    if (!list) return;
    var i = list.indexOf(fn);
    if (i >= 0) list.splice(i, 1);
  }

  function emit(event, detail) {
    var list = (listeners[event] || []).slice();
    for (var i = 0; i < list.length; i++) {
      try {
        list[i](detail);
      } catch (e) {
        warn('listener of "' + event + '" threw', e);
      }
    }
  }

  // ---------------------------------------------------------------------------------------
  // Session and socket state (kept across reconnects: token, lastCall, unacknowledged data)

  var state = {
    token: null, // the session's secret, from POST /dsbridge/session or welcome
    session: null, // public session id
    heartbeat: 20000,
    ws: null,
    welcomed: false, // the current socket got its welcome: calls may go out
    stopped: false, // no more reconnects (closed by the page or the server for good)
    nextId: 1, // next call id
    lastSentId: 0, // highest call id sent on a socket (X-DSBridge-After)
    lastSeq: 0, // highest seq processed
    ackedSeq: 0, // highest seq acknowledged
    ackTimer: null,
    queue: [], // call messages not yet sent (socket not welcomed)
    inFlight: new Map(), // id -> call message sent but without its ret (resent on resume)
    outbox: [], // messages waiting for the next flush (one batch frame per flush)
    flushScheduled: false,
    retries: 0,
    reconnectTimer: null,
    silenceTimer: null
  };

  // id -> {stub}: what to do when a call's ret arrives.
  var callsById = new Map();
  // stub -> handler object for promise calls (dsBridge.invoke); plain callbacks live on window.
  var stubHandlers = new Map();
  // Stubs of window callbacks whose call has not ended yet.
  var windowStubs = new Set();

  function nextStubName() {
    return 'dscb' + window.dscb++;
  }

  // ---------------------------------------------------------------------------------------
  // HTTP: session creation and synchronous calls

  function createSessionSync() {
    var xhr = new XMLHttpRequest();
    try {
      xhr.open('POST', BASE + '/dsbridge/session', false);
      if (AUTH) xhr.setRequestHeader('X-DSBridge-Auth', AUTH);
      xhr.send(null);
    } catch (e) {
      warn('cannot create a session:', e && e.message);
      return false;
    }
    if (xhr.status !== 200) {
      warn('cannot create a session: HTTP ' + xhr.status);
      return false;
    }
    try {
      var answer = JSON.parse(xhr.responseText);
      state.token = answer.token;
      state.session = answer.session;
    } catch (e) {
      warn('bad session answer');
      return false;
    }
    // A socket that already said hello without a token is making a second session: replace
    // it with one attached to this session (it carried no calls yet, since none go out
    // before welcome). A socket still connecting will send the token in its hello.
    if (state.ws && !state.welcomed && state.ws.__helloSent) {
      dropSocket(state.ws);
      state.ws = null;
    }
    if (!state.ws) connect();
    return true;
  }

  /**
   * Runs a synchronous call over POST /dsbridge/call. `arg` is the DSBridge envelope, an
   * object or its JSON text. Returns the answer's text ('' when there is none), as a native
   * WebView's prompt() would.
   */
  function syncCallText(method, arg, retried) {
    if (!state.token && !createSessionSync()) return '';
    flushOutbox(); // X-DSBridge-After must name only calls that have really gone out
    var body = JSON.stringify({ method: method, arg: arg });
    var xhr = new XMLHttpRequest();
    try {
      xhr.open('POST', BASE + '/dsbridge/call', false);
      xhr.setRequestHeader('Content-Type', 'application/json');
      xhr.setRequestHeader('X-DSBridge-Token', state.token);
      xhr.setRequestHeader('X-DSBridge-After', String(state.lastSentId));
      xhr.send(body);
    } catch (e) {
      warn('sync call of "' + method + '" failed:', e && e.message);
      return '';
    }
    if (xhr.status === 401 && !retried) {
      // The session is gone (expired or ended): start a new one and try once more.
      sessionLost('the server no longer knows the session');
      return syncCallText(method, arg, true);
    }
    if (xhr.status !== 200) {
      warn('sync call of "' + method + '": HTTP ' + xhr.status);
      return '';
    }
    return xhr.responseText;
  }

  function parseData(text) {
    try {
      return JSON.parse(text || '{}').data;
    } catch (e) {
      return undefined;
    }
  }

  // ---------------------------------------------------------------------------------------
  // WebSocket

  function connect() {
    if (state.stopped || state.ws) return;
    clearTimeout(state.reconnectTimer);
    state.reconnectTimer = null;
    var ws;
    try {
      ws = new WebSocket(WS_URL, 'dsbridge.v1');
    } catch (e) {
      warn('cannot open the socket:', e && e.message);
      scheduleReconnect();
      return;
    }
    state.ws = ws;
    state.welcomed = false;
    ws.onopen = function () {
      var hello = { t: 'hello', v: 1 };
      if (state.token) {
        hello.token = state.token;
        hello.ack = state.lastSeq;
        state.ackedSeq = state.lastSeq;
      }
      if (AUTH) hello.auth = AUTH;
      ws.send(JSON.stringify(hello));
      ws.__helloSent = true;
      armSilenceTimer();
    };
    ws.onmessage = function (event) {
      if (ws !== state.ws) return;
      armSilenceTimer();
      onFrame(event.data);
    };
    ws.onclose = function (event) {
      if (ws !== state.ws) return;
      onSocketClosed(event.code, event.reason);
    };
    ws.onerror = function () {}; // onclose follows
  }

  function dropSocket(ws) {
    ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
    try {
      ws.close(1000);
    } catch (e) {
      /* already closing */
    }
  }

  function armSilenceTimer() {
    clearTimeout(state.silenceTimer);
    // A page that hears nothing for 2 x heartbeat reconnects (PROTOCOL 2.3).
    state.silenceTimer = setTimeout(function () {
      if (!state.ws) return;
      warn('no traffic for ' + 2 * state.heartbeat + ' ms; reconnecting');
      var ws = state.ws;
      dropSocket(ws);
      onSocketClosed(4000, 'silence');
    }, 2 * state.heartbeat + 1000);
  }

  function onSocketClosed(code, reason) {
    var wasWelcomed = state.welcomed;
    state.ws = null;
    state.welcomed = false;
    clearTimeout(state.silenceTimer);
    clearTimeout(state.ackTimer);
    state.ackTimer = null;
    if (wasWelcomed) emit('disconnected', { code: code, reason: reason });
    switch (code) {
      case 1000: // ended after _dsb.closePage
      case 1008: // auth refused
      case 4009: // replaced by a newer socket
      case 4029: // too many sessions
        state.stopped = true;
        if (!wasWelcomed) emit('disconnected', { code: code, reason: reason });
        return;
      case 4004: // unknown, expired or closed session
      case 4008: // replay bound exceeded: the session ended
        sessionLost(reason || 'session ended (' + code + ')');
        break;
      default:
        break;
    }
    scheduleReconnect();
  }

  function scheduleReconnect() {
    if (state.stopped || state.reconnectTimer) return;
    var delay = Math.min(10000, 250 * Math.pow(2, state.retries));
    state.retries++;
    state.reconnectTimer = setTimeout(function () {
      state.reconnectTimer = null;
      connect();
    }, delay);
  }

  /** The session is gone: what it had in flight will never complete. */
  function sessionLost(why) {
    state.token = null;
    state.session = null;
    state.lastSeq = 0;
    state.ackedSeq = 0;
    state.lastSentId = 0; // X-DSBridge-After names calls of the current session only
    var lostIds = Array.from(state.inFlight.keys());
    state.inFlight.clear();
    lostIds.forEach(function (id) {
      var call = callsById.get(id);
      callsById.delete(id);
      if (call && call.stub) finishStubWithError(call.stub, { kind: 'sessionLost', message: why });
    });
    // Calls started earlier whose completions were still to come are lost too.
    Array.from(stubHandlers.keys())
      .concat(Array.from(windowStubs))
      .forEach(function (stub) {
        if (!isQueuedStub(stub)) finishStubWithError(stub, { kind: 'sessionLost', message: why });
      });
    if (state.ws) {
      dropSocket(state.ws);
      state.ws = null;
      state.welcomed = false;
    }
    emit('sessionLost', { reason: why });
    // The new session must learn that the page's handlers are registered.
    if (window._dsInit) socketCall('_dsb.dsinit', { data: null });
  }

  function isQueuedStub(stub) {
    return state.queue.some(function (m) {
      return m.arg && m.arg._dscbstub === stub;
    });
  }

  // Outgoing messages: coalesced into one batch frame per microtask.

  function send(message) {
    state.outbox.push(message);
    if (!state.flushScheduled) {
      state.flushScheduled = true;
      Promise.resolve().then(flushOutbox);
    }
  }

  function flushOutbox() {
    state.flushScheduled = false;
    if (!state.outbox.length) return;
    if (!state.ws || !state.welcomed || state.ws.readyState !== 1) {
      state.outbox.length = 0; // only acks and cancels get here while disconnected
      return;
    }
    var out = state.outbox;
    state.outbox = [];
    for (var i = 0; i < out.length; i += MAX_BATCH) {
      var part = out.slice(i, i + MAX_BATCH);
      state.ws.send(JSON.stringify(part.length === 1 ? part[0] : part));
    }
  }

  function sendCall(message) {
    state.inFlight.set(message.id, message);
    if (message.id > state.lastSentId) state.lastSentId = message.id;
    send(message);
  }

  /** Starts a socket call; `stub` is the envelope's _dscbstub, if any. Returns the call id. */
  function socketCall(method, arg, stub) {
    var id = state.nextId++;
    var message = { t: 'call', id: id, method: method, arg: arg };
    callsById.set(id, { stub: stub || null });
    if (stub && !stubHandlers.has(stub)) windowStubs.add(stub);
    if (state.welcomed && !state.queue.length && state.inFlight.size < CALL_WINDOW) {
      sendCall(message);
    } else {
      state.queue.push(message);
      if (!state.welcomed) connect();
    }
    return id;
  }

  /** Sends queued calls, in order, while the window allows. */
  function sendQueued() {
    while (state.welcomed && state.queue.length && state.inFlight.size < CALL_WINDOW) {
      sendCall(state.queue.shift());
    }
  }

  /** Withdraws a call not sent yet; true if it was still queued. */
  function unqueue(id) {
    for (var i = 0; i < state.queue.length; i++) {
      if (state.queue[i].id === id) {
        state.queue.splice(i, 1);
        callsById.delete(id);
        return true;
      }
    }
    return false;
  }

  function scheduleAck() {
    var unacked = state.lastSeq - state.ackedSeq;
    if (unacked <= 0) return;
    if (unacked >= ACK_EVERY) {
      sendAck();
    } else if (!state.ackTimer) {
      state.ackTimer = setTimeout(sendAck, ACK_DELAY_MS);
    }
  }

  function sendAck() {
    clearTimeout(state.ackTimer);
    state.ackTimer = null;
    if (!state.welcomed || state.lastSeq <= state.ackedSeq) return;
    state.ackedSeq = state.lastSeq;
    send({ t: 'ack', seq: state.lastSeq });
  }

  // Incoming frames

  function onFrame(text) {
    var value;
    try {
      value = JSON.parse(text);
    } catch (e) {
      warn('ignoring a frame that is not JSON');
      return;
    }
    var messages = Array.isArray(value) ? value : [value];
    for (var i = 0; i < messages.length; i++) {
      var m = messages[i];
      if (!m || typeof m !== 'object') continue;
      try {
        onMessage(m);
      } catch (e) {
        warn('error while handling a "' + m.t + '" message', e);
      }
    }
    scheduleAck();
  }

  function onMessage(m) {
    if (m.t === 'welcome') return onWelcome(m);
    if (m.t === 'hb') return;
    if (typeof m.seq === 'number') {
      if (m.seq <= state.lastSeq) return; // already processed (resent on resume)
      state.lastSeq = m.seq;
    }
    if (m.t === 'ret') onRet(m);
    else if (m.t === 'cb') onCb(m);
    else if (m.t === 'invoke') onInvoke(m);
  }

  function onWelcome(m) {
    state.token = m.token;
    state.session = m.session;
    if (typeof m.heartbeat === 'number' && m.heartbeat > 0) state.heartbeat = m.heartbeat;
    state.welcomed = true;
    state.retries = 0;
    armSilenceTimer();
    // Calls the server has not received (id > lastCall) go again, in order, then the queue.
    var lastCall = typeof m.lastCall === 'number' ? m.lastCall : 0;
    var resend = [];
    state.inFlight.forEach(function (message, id) {
      if (id > lastCall) resend.push(message);
    });
    resend.sort(function (a, b) {
      return a.id - b.id;
    });
    resend.forEach(function (message) {
      send(message);
    });
    sendQueued();
    flushOutbox();
    emit('connected', { session: m.session, resumed: !!m.resumed });
  }

  function onRet(m) {
    if (state.inFlight.delete(m.id) && state.queue.length) sendQueued();
    var call = callsById.get(m.id);
    callsById.delete(m.id);
    if (!call) return;
    if (m.code !== 0) {
      var error = m.error || { kind: 'failed', message: 'not handled' };
      warn('call ' + m.id + ' failed (' + error.kind + '): ' + error.message);
      if (call.stub) finishStubWithError(call.stub, error);
    }
  }

  function onCb(m) {
    var stub = m.stub;
    var handler = stubHandlers.get(stub);
    var ending = m.complete !== false || m.error || m.cancelled;
    if (handler) {
      if (ending) stubHandlers.delete(stub);
      if (m.error) handler.error(m.error);
      else if (m.cancelled) handler.error({ kind: 'cancelled', message: 'cancelled' });
      else handler.data(m.data, m.complete !== false);
      return;
    }
    // A DSBridge callback stored on window, delivered like a WebView does.
    var fn = window[stub];
    if (m.error) warn(stub + ' ended with an error (' + m.error.kind + '): ' + m.error.message);
    else if (!m.cancelled && typeof fn === 'function') {
      try {
        fn(m.data);
      } catch (e) {
        warn('callback ' + stub + ' threw', e);
      }
    }
    if (ending) {
      windowStubs.delete(stub);
      delete window[stub];
    }
  }

  function finishStubWithError(stub, error) {
    var handler = stubHandlers.get(stub);
    if (handler) {
      stubHandlers.delete(stub);
      handler.error(error);
    } else {
      windowStubs.delete(stub);
      delete window[stub];
    }
  }

  /** Sends a native-initiated call's answer: _dsb.returnValue over the socket. */
  function returnValue(answer) {
    socketCall('_dsb.returnValue', { data: answer });
  }

  function errorText(e) {
    return e && e.message ? String(e.message) : String(e);
  }

  // ---------------------------------------------------------------------------------------
  // Native -> JS lookup (dsbridge.js 3.1.4, _handleMessageFromNative)

  /** Finds a registered handler: {f, ob, async} or null. */
  function findHandler(method) {
    var dsf = window._dsf;
    var dsaf = window._dsaf;
    if (typeof dsf[method] === 'function') return { f: dsf[method], ob: dsf, async: false };
    if (typeof dsaf[method] === 'function') return { f: dsaf[method], ob: dsaf, async: true };
    var parts = String(method).split('.');
    if (parts.length < 2) return null;
    var name = parts.pop();
    var namespace = parts.join('.');
    var ob = dsf._obs[namespace] || {};
    if (typeof ob[name] === 'function') return { f: ob[name], ob: ob, async: false };
    ob = dsaf._obs[namespace] || {};
    if (typeof ob[name] === 'function') return { f: ob[name], ob: ob, async: true };
    return null;
  }

  /** Runs a native-initiated call and answers it (error answers where DSBridge is silent). */
  function runNativeCall(method, callbackId, args) {
    var found = findHandler(method);
    if (!found) {
      returnValue({ id: callbackId, complete: true, error: 'method "' + method + '" is not registered' });
      return;
    }
    if (!Array.isArray(args)) args = args === undefined || args === null ? [] : [args];
    if (!found.async) {
      var value;
      try {
        value = found.f.apply(found.ob, args);
      } catch (e) {
        returnValue({ id: callbackId, complete: true, error: errorText(e) });
        return;
      }
      returnValue({ id: callbackId, data: value, complete: true });
      return;
    }
    var done = false;
    args = args.slice();
    args.push(function (data, complete) {
      if (done) return;
      done = complete !== false;
      returnValue({ id: callbackId, data: data, complete: done });
    });
    try {
      found.f.apply(found.ob, args);
    } catch (e) {
      if (!done) {
        done = true;
        returnValue({ id: callbackId, complete: true, error: errorText(e) });
      }
    }
  }

  function onInvoke(m) {
    if (hookMode) return deliverToOriginal(m);
    runNativeCall(m.method, m.callbackId, m.args || []);
  }

  // ---------------------------------------------------------------------------------------
  // Hook mode: the original dsbridge.js 3.1.4 runs on top of window._dsbridge

  function deliverToOriginal(m) {
    var args = m.args || [];
    if (!findHandler(m.method)) {
      // The original would drop it silently and leave the native caller waiting.
      returnValue({ id: m.callbackId, complete: true, error: 'method "' + m.method + '" is not registered' });
      return;
    }
    try {
      window._handleMessageFromNative({ method: m.method, callbackId: m.callbackId, data: JSON.stringify(args) });
    } catch (e) {
      returnValue({ id: m.callbackId, complete: true, error: errorText(e) });
    }
  }

  function installHook() {
    window._dsbridge = {
      /** The original's transport hook: returns '{"code":…,"data":…}' like a WebView. */
      call: function (method, argJSON) {
        var arg = null;
        try {
          arg = JSON.parse(argJSON);
        } catch (e) {
          arg = argJSON;
        }
        var stub = arg && typeof arg === 'object' ? arg._dscbstub : undefined;
        if (method === '_dsb.returnValue') {
          // An answer to a native-initiated call: ordered with the socket traffic.
          socketCall(method, arg);
          return '{"code":0,"data":""}';
        }
        if (typeof stub === 'string') {
          socketCall(method, arg, stub);
          return '{"code":0,"data":""}';
        }
        return syncCallText(method, arg);
      },
      on: on,
      off: off,
      get session() {
        return state.session;
      }
    };
    // The original sends _dsb.dsinit from a timer set when it loaded; when the browser ran
    // that timer before this script arrived (the parser may yield between two external
    // scripts), it went nowhere. Send it again: repeats have no effect (PROTOCOL 5).
    if (window._dsInit) {
      setTimeout(function () {
        socketCall('_dsb.dsinit', { data: null });
      }, 0);
    }
    connect();
  }

  if (hookMode) {
    installHook();
    return;
  }

  // ---------------------------------------------------------------------------------------
  // The DSBridge API (3.1.4 semantics) plus invoke/on

  function envelope(args) {
    return { data: args === undefined ? null : args };
  }

  var bridge = {
    call: function (method, args, cb) {
      if (typeof args === 'function') {
        cb = args;
        args = {};
      }
      var arg = envelope(args);
      if (typeof cb === 'function') {
        var stub = nextStubName();
        window[stub] = cb;
        arg._dscbstub = stub;
        // Through JSON like the original: functions and undefined inside args vanish.
        socketCall(method, JSON.parse(JSON.stringify(arg)), stub);
        return '';
      }
      return parseData(syncCallText(method, JSON.parse(JSON.stringify(arg))));
    },

    register: function (name, fun, asyn) {
      var q = asyn ? window._dsaf : window._dsf;
      if (!window._dsInit) {
        window._dsInit = true;
        // Tell the server the page is ready, on the next macrotask (as 3.1.4 does).
        setTimeout(function () {
          bridge.call('_dsb.dsinit');
        }, 0);
      }
      if (typeof fun === 'object') q._obs[name] = fun;
      else q[name] = fun;
    },

    registerAsyn: function (name, fun) {
      this.register(name, fun, true);
    },

    hasNativeMethod: function (name, type) {
      return this.call('_dsb.hasNativeMethod', { name: name, type: type || 'all' });
    },

    disableJavascriptDialogBlock: function (disable) {
      this.call('_dsb.disableJavascriptDialogBlock', { disable: disable !== false });
    },

    close: function () {
      bridge.call('_dsb.closePage');
    },

    /**
     * Promise API: resolves with the final value, reports complete:false values to
     * options.onProgress, rejects with an Error carrying `kind`; options.signal cancels.
     */
    invoke: function (method, args, options) {
      options = options || {};
      var signal = options.signal;
      var onProgress = options.onProgress;
      return new Promise(function (resolve, reject) {
        function fail(error) {
          var e = new Error(error.message || error.kind);
          e.kind = error.kind;
          if (error.kind === 'cancelled') e.name = 'AbortError';
          reject(e);
        }
        if (signal && signal.aborted) {
          fail({ kind: 'cancelled', message: 'aborted before the call was made' });
          return;
        }
        var stub = nextStubName();
        var arg = JSON.parse(JSON.stringify(envelope(args)));
        arg._dscbstub = stub;
        var id;
        var onAbort = function () {
          if (!stubHandlers.has(stub)) return;
          stubHandlers.delete(stub);
          if (!unqueue(id)) send({ t: 'cancel', id: id });
          fail({ kind: 'cancelled', message: 'aborted' });
        };
        var cleanup = function () {
          if (signal) signal.removeEventListener('abort', onAbort);
        };
        stubHandlers.set(stub, {
          data: function (value, complete) {
            if (!complete) {
              if (typeof onProgress === 'function') {
                try {
                  onProgress(value);
                } catch (e) {
                  warn('onProgress threw', e);
                }
              }
              return;
            }
            cleanup();
            resolve(value);
          },
          error: function (error) {
            cleanup();
            fail(error);
          }
        });
        if (signal) signal.addEventListener('abort', onAbort);
        id = socketCall(method, arg, stub);
      });
    },

    /** Connection events: 'connected', 'disconnected', 'sessionLost'. */
    on: on,
    off: off
  };

  Object.defineProperty(bridge, '__dsbridged', { value: true });
  Object.defineProperty(bridge, 'session', {
    get: function () {
      return state.session;
    },
    enumerable: false
  });

  var globals = {
    _dsf: { _obs: {} },
    _dsaf: { _obs: {} },
    dscb: 0,
    dsBridge: bridge,
    bridge: bridge,
    close: function () {
      bridge.call('_dsb.closePage');
    },
    /** DSBridge's native entry point; info = {method, callbackId, data: "<JSON array>"}. */
    _handleMessageFromNative: function (info) {
      var args;
      try {
        args = JSON.parse(info.data);
      } catch (e) {
        returnValue({ id: info.callbackId, complete: true, error: 'arguments are not JSON' });
        return;
      }
      runNativeCall(info.method, info.callbackId, args);
    }
  };
  for (var key in globals) window[key] = globals[key];

  bridge.register('_hasJavascriptMethod', function (method, tag) {
    var name = method.split('.');
    if (name.length < 2) return !!(window._dsf[name] || window._dsaf[name]);
    var m = name.pop();
    var namespace = name.join('.');
    var ob = window._dsf._obs[namespace] || window._dsaf._obs[namespace];
    return ob && !!ob[m];
  });

  connect();
})();

// SPDX-License-Identifier: MIT
// dsbridge.js for dsbridged: a drop-in replacement for DSBridge's dsbridge.js 3.1.4 that talks
// to a dsbridged server instead of an app's WebView (wire contract: PROTOCOL.md, version 1).
//
// Modes, chosen when the script runs:
// - Inside a real DSBridge WebView (Android injected window._dsbridge; iOS and DSBridge-Swift
//   set window._dswk; old Android marks the user agent): steps aside. If the original
//   dsbridge.js already ran, it does nothing; else it installs the 3.1.4 API over the app's
//   own bridge, so the same page keeps working inside the app.
// - Alone: installs the DSBridge globals (_dsf, _dsaf, dscb, dsBridge, bridge, close,
//   _handleMessageFromNative) with 3.1.4's API and semantics, plus dsBridge.invoke (promises),
//   dsBridge.on (connection events) and dsBridge.reconnect.
// - After the original dsbridge.js 3.1.4 (window._dsf already set): leaves the original's
//   globals alone.
// - Channel only (the script element has a data-channel-only attribute; web/webkit.js and
//   web/wvjb.js load it so): installs only window._dsbridge, the session channel, for
//   another page API.
// In the last three modes it installs window._dsbridge, the native hook the original checks
// first, so an original library loaded before or after this script (a bundled npm
// "dsbridge") runs unchanged over dsbridged. Other shims use the same hook as their channel:
// request (a call settling a promise: by its ret, or with {callback: true} by its final
// completion), serve (answers native-initiated calls of a method), ready (the page counts
// as ready) and holdReady/releaseReady (defer that until the shim's own setup has run; see
// "Channel API" below).
//
// Transport: one WebSocket per page session (subprotocol dsbridge.v1) for calls with a
// callback, completions and native-initiated calls; a synchronous XMLHttpRequest to
// POST /dsbridge/call for calls without a callback, which return the native value.
// Plain ES2017, no dependencies; every message is built with JSON.stringify when it is queued.
//
// The same file is the implementation of the ES module (dsbridge.mjs, the package
// "dsbridged-client" for bundlers): dsbridge-module.mjs sets window[Symbol.for(
// 'dsbridged.module')] to its URL just before this file runs as part of the module. Then the
// script element is not ours (no data- attributes), the socket opens one microtask later (so
// the importer's configure() applies) and, in every mode, window[Symbol.for(
// 'dsbridged.client')] hands the module its API (see "The client for dsbridge.mjs" below).
// Whichever of the script and the module runs first starts the one session; the other one
// finds it there.
(function () {
  'use strict';

  var CLIENT = Symbol.for('dsbridged.client');
  var MODULE = Symbol.for('dsbridged.module');
  var asModule = Object.prototype.hasOwnProperty.call(window, MODULE);
  var moduleUrl = asModule ? window[MODULE] : null;
  if (asModule) delete window[MODULE];

  var script = asModule ? null : document.currentScript;
  var channelOnly = !!(script && script.hasAttribute && script.hasAttribute('data-channel-only'));
  if (window[CLIENT] || (window.dsBridge && window.dsBridge.__dsbridged) || (window._dsbridge && window._dsbridge.__dsbridged)) {
    if (!asModule && !channelOnly && window._dsbridge && window._dsbridge.__channelOnly && !window.dsBridge && window.console) {
      console.warn('[dsbridge] dsbridge.js came after webkit.js or wvjb.js started the session channel, so the ' +
        'DSBridge API is not installed: load dsbridge.js before the document is parsed (a plain script tag)');
    }
    return;
  }
  var inApp =
    !!window._dsbridge || !!window._dswk || (navigator.userAgent || '').indexOf('_dsbridge') !== -1;
  if (inApp) {
    // The module gets the app's API even when the original library installed the globals.
    if (!window._dsf) publishApp(installAppBridge(true));
    else if (asModule) publishApp(installAppBridge(false));
    return;
  }
  var hookMode = !!window._dsf; // the original dsbridge.js ran first

  // ---------------------------------------------------------------------------------------
  // Configuration

  function attr(name) {
    return script && script.getAttribute ? script.getAttribute(name) : null;
  }

  // What the module's configure() set (the script has no configure: both stay null).
  var config = { server: null, auth: null };

  /** The module's URL when it came over http(s) (a bundler may make it a file: URL). */
  function moduleHttpUrl() {
    return moduleUrl && /^https?:/.test(moduleUrl) ? moduleUrl : null;
  }

  /**
   * The server's http(s) origin: window.DSBRIDGE_SERVER, data-server, or the script's origin.
   * As a module: configure({server}), window.DSBRIDGE_SERVER, the module's origin, or the page's.
   */
  function serverBase() {
    var configured = config.server || window.DSBRIDGE_SERVER || attr('data-server');
    var raw = configured || (script && script.src) || moduleHttpUrl() || window.location.href;
    try {
      var url = new URL(raw, window.location.href);
      return url.protocol + '//' + url.host;
    } catch (e) {
      return window.location.protocol + '//' + window.location.host;
    }
  }

  // The server, fixed at its first use: when the script runs; as a module, when the socket
  // opens or a first synchronous call goes out.
  var BASE = null;
  var WS_URL = null;

  function server() {
    if (BASE === null) {
      BASE = serverBase();
      WS_URL = BASE.replace(/^http/, 'ws') + '/dsbridge';
    }
    return BASE;
  }

  if (!asModule) server();
  /** The shared secret, read at each use: a page may set it before dsBridge.reconnect(). */
  function auth() {
    return config.auth || window.DSBRIDGE_AUTH || attr('data-auth') || null;
  }
  // Acks (PROTOCOL.md 2.2: at least every 64 messages and within 1 s): an ack due rides in
  // front of whatever the page sends next, in the same frame; alone only after ACK_DELAY_MS
  // without anything to send. A page calling at least once a second sends no ack frames.
  var ACK_EVERY = 64;
  var ACK_DELAY_MS = 1000;
  var MAX_BATCH = 256;
  // Bytes per batch frame at first (the server's default maxMessageBytes is 4 MiB). A server
  // that closes 1009 lowers it (see onWelcome); a single message above it goes alone.
  var FRAME_BYTES = 1024 * 1024;
  var MIN_FRAME_BYTES = 1024;
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

  /**
   * An exception of the page's own code (a registered handler): console.error, and thrown
   * again on a new task so window.onerror and error monitors see it.
   */
  function reportPageError(what, e) {
    if (window.console && console.error) console.error('[dsbridge] ' + what + ':', e);
    setTimeout(function () {
      throw e;
    }, 0);
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
    generation: 0, // counts sessions: a new one starts after sessionLost or reconnect()
    dsinitGeneration: -1, // the generation whose _dsb.dsinit is queued or sent
    dsinitId: 0, // the call id of that _dsb.dsinit (taken back by hook.holdReady while queued)
    pageReady: false, // a shim on this channel said the page is ready (hook.ready)
    channelStubs: 0, // channel requests made with {callback: true} (their stubs: "_dsbridgedN")
    heartbeat: 20000,
    ws: null,
    welcomed: false, // the current socket got its welcome: calls may go out
    stopped: null, // {code, reason} once the page stops reconnecting (until reconnect())
    nextId: 1, // next call id
    lastSentId: 0, // highest call id sent on a socket (X-DSBridge-After)
    lastSeq: 0, // highest seq processed
    ackedSeq: 0, // highest seq acknowledged
    ackTimer: null,
    queue: [], // call records not yet sent (socket not welcomed, or window full)
    inFlight: new Map(), // id -> call record sent but without its ret (resent on resume)
    outbox: [], // {text, bytes, id} waiting for the next flush
    flushScheduled: false,
    frameBytes: FRAME_BYTES,
    frames: [], // frames with calls sent on the current socket: {ids, bytes}
    refused: null, // {code, reason, frames} of the last socket that closed with calls unanswered
    strikes: null, // {id, count}: closes in a row with call `id` the first the server lacked
    retries: 0,
    reconnectTimer: null,
    silenceTimer: null
  };

  // As a module, the socket waits for the microtask after the module's evaluation (start()),
  // so a configure() at the top level of the importing module comes first.
  var held = asModule;

  // id -> {stub, method}: what to do when a call's ret arrives.
  var callsById = new Map();
  // stub -> handler object for promise calls (dsBridge.invoke); plain callbacks live on window.
  var stubHandlers = new Map();
  // Stubs of window callbacks whose call has not ended yet.
  var windowStubs = new Set();
  // method -> function(args) answering native-initiated calls of it (hook.serve).
  var servedMethods = new Map();

  // Stubs of channel requests made with {callback: true} (hook.request): CHANNEL_STUB + n.
  var CHANNEL_STUB = '_dsbridged';

  function isChannelStub(stub) {
    return typeof stub === 'string' && stub.indexOf(CHANNEL_STUB) === 0;
  }

  function nextStubName() {
    return 'dscb' + window.dscb++;
  }

  /** UTF-8 length of a string (what the server's maxMessageBytes counts). */
  function utf8Bytes(s) {
    var n = s.length;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c >= 0x80) n += c >= 0x800 && (c < 0xd800 || c > 0xdbff) && (c < 0xdc00 || c > 0xdfff) ? 2 : 1;
    }
    return n;
  }

  // ---------------------------------------------------------------------------------------
  // HTTP: session creation and synchronous calls

  function createSessionSync() {
    var xhr = new XMLHttpRequest();
    try {
      xhr.open('POST', server() + '/dsbridge/session', false);
      if (auth()) xhr.setRequestHeader('X-DSBridge-Auth', auth());
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
    // before welcome), and end the session it made rather than leave it to expire. A socket
    // still connecting will send the token in its hello.
    if (state.ws && !state.welcomed && state.ws.__helloSent) {
      retireSocket(state.ws);
      state.ws = null;
    }
    if (!state.ws) connect();
    return true;
  }

  /** One POST /dsbridge/call; returns {status, text} or {status: 0, error} if it could not run. */
  function postCall(bodyText) {
    var xhr = new XMLHttpRequest();
    try {
      xhr.open('POST', server() + '/dsbridge/call', false);
      xhr.setRequestHeader('Content-Type', 'application/json');
      xhr.setRequestHeader('X-DSBridge-Token', state.token);
      xhr.setRequestHeader('X-DSBridge-After', String(state.lastSentId));
      xhr.send(bodyText);
    } catch (e) {
      return { status: 0, error: (e && e.message) || String(e) };
    }
    return { status: xhr.status, text: xhr.responseText };
  }

  function callBody(record) {
    return '{"method":' + JSON.stringify(record.method) + ',"arg":' + record.argText + '}';
  }

  /**
   * Program order (PROTOCOL 4): a sync call starts after every async call made before it.
   * Calls still queued in the page go first: on the socket when it is up (X-DSBridge-After
   * then names them), else over HTTP, one by one, in order — unless calls sent on a lost
   * socket are still unanswered: the server may not have them yet, so the queued ones wait
   * for the socket (the sync call itself waits for the unanswered ones, PROTOCOL 4).
   * Returns false when the session is unknown to the server (401), leaving the rest queued.
   */
  function sendPendingBeforeSync() {
    if (state.welcomed && state.ws && state.ws.readyState === 1) {
      while (state.queue.length) sendCall(state.queue.shift());
      flushOutbox(); // X-DSBridge-After must name only calls that have really gone out
      return true;
    }
    if (!state.queue.length || state.inFlight.size) return true;
    while (state.queue.length) {
      var record = state.queue[0];
      var answer = postCall(callBody(record));
      if (answer.status === 401 || answer.status === 0) {
        // 401: the session is gone, the caller starts a new one. 0: nothing reached the
        // server (down, or sync XHR not allowed): the call waits for the socket.
        if (answer.status === 0) warn('cannot send queued calls over HTTP:', answer.error);
        return answer.status !== 401;
      }
      state.queue.shift();
      callsById.delete(record.id);
      if (answer.status === 200) {
        var parsed = null;
        try {
          parsed = JSON.parse(answer.text);
        } catch (e) {
          parsed = null;
        }
        if (parsed && parsed.code !== 0) {
          callFailed(record, parsed.error || { kind: 'failed', message: 'not handled' });
        } else if (record.reply) {
          record.reply.resolve(parsed ? parsed.data : null);
        }
        // code 0: completions of a call with a stub arrive as cb on the socket.
      } else {
        callFailed(record, refusedError(answer.status === 413 ? 1009 : answer.status, 'HTTP ' + answer.status));
      }
    }
    return true;
  }

  /**
   * Runs a synchronous call over POST /dsbridge/call. Returns the answer's text ('' when there
   * is none), as a native WebView's prompt() would.
   */
  function syncCallText(method, argText, retried) {
    if (state.stopped) {
      warn('sync call of "' + method + '" after the connection was closed (' + state.stopped.code + '); ' +
        'call dsBridge.reconnect() first');
      return '';
    }
    if (!state.token && !createSessionSync()) return '';
    if (!sendPendingBeforeSync()) {
      if (retried) return '';
      sessionLost('the server no longer knows the session');
      return syncCallText(method, argText, true);
    }
    var answer = postCall(callBody({ method: method, argText: argText }));
    if (answer.status === 0) {
      warn('sync call of "' + method + '" failed:', answer.error);
      return '';
    }
    if (answer.status === 401 && !retried) {
      // The session is gone (expired or ended): start a new one and try once more.
      sessionLost('the server no longer knows the session');
      return syncCallText(method, argText, true);
    }
    if (answer.status !== 200) {
      warn('sync call of "' + method + '": HTTP ' + answer.status);
      return '';
    }
    if (method === '_dsb.closePage') stop(1000, 'closed by the page');
    return answer.text;
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
    if (held || state.stopped || state.ws) return;
    clearTimeout(state.reconnectTimer);
    state.reconnectTimer = null;
    var ws;
    try {
      server();
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
      if (auth()) hello.auth = auth();
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
      if (state.frames.length) {
        // If the server refused a frame, the next welcome's lastCall says which one.
        state.refused = { code: event.code, reason: event.reason, frames: state.frames };
      }
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

  /**
   * A socket whose hello made a session the page no longer wants (it made one over HTTP
   * meanwhile): once its welcome comes, it ends that session with `_dsb.closePage` (the
   * server then closes it); without a welcome within 10 s it is just closed.
   */
  function retireSocket(ws) {
    ws.onopen = ws.onclose = ws.onerror = null;
    var closeAfter = setTimeout(function () {
      dropSocket(ws);
    }, 10000);
    ws.onmessage = function (event) {
      var parsed;
      try {
        parsed = JSON.parse(event.data);
      } catch (e) {
        return;
      }
      var list = Array.isArray(parsed) ? parsed : [parsed];
      for (var i = 0; i < list.length; i++) {
        if (!list[i] || list[i].t !== 'welcome') continue;
        ws.onmessage = null;
        try {
          ws.send('{"t":"call","id":1,"method":"_dsb.closePage"}');
        } catch (e) {
          /* closed meanwhile: the session expires after its grace */
        }
        clearTimeout(closeAfter);
        closeAfter = setTimeout(function () {
          dropSocket(ws);
        }, 5000);
        return;
      }
    };
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
    state.frames = [];
    clearTimeout(state.silenceTimer);
    clearTimeout(state.ackTimer);
    state.ackTimer = null;
    switch (code) {
      case 1000: // ended after _dsb.closePage
      case 1008: // auth refused
      case 4009: // replaced by a newer socket
      case 4029: // too many sessions
        stop(code, reason);
        return;
      case 4004: // unknown, expired or closed session
      case 4008: // replay bound exceeded: the session ended
        if (wasWelcomed) emit('disconnected', { code: code, reason: reason, reconnecting: true });
        sessionLost(reason || 'session ended (' + code + ')');
        break;
      default:
        if (wasWelcomed) emit('disconnected', { code: code, reason: reason, reconnecting: true });
        break;
    }
    scheduleReconnect();
  }

  function scheduleReconnect() {
    if (state.stopped || state.reconnectTimer) return;
    // Exponential backoff with jitter (half to all of the step), so pages cut off together
    // (a daemon restart) do not come back in lockstep.
    var step = Math.min(10000, 250 * Math.pow(2, state.retries));
    var delay = Math.round(step * (0.5 + Math.random() * 0.5));
    state.retries++;
    state.reconnectTimer = setTimeout(function () {
      state.reconnectTimer = null;
      connect();
    }, delay);
  }

  /**
   * The page stops reconnecting (1000 closePage, 1008 auth refused, 4009 replaced, 4029 too
   * many sessions): every call not finished fails with kind "closed", later calls fail at
   * once, until dsBridge.reconnect().
   */
  function stop(code, reason) {
    if (state.stopped) return;
    state.stopped = { code: code, reason: reason || '' };
    clearTimeout(state.reconnectTimer);
    state.reconnectTimer = null;
    if (state.ws) {
      dropSocket(state.ws);
      state.ws = null;
    }
    state.welcomed = false;
    state.outbox.length = 0;
    emit('disconnected', { code: code, reason: reason || '', reconnecting: false });
    failEverything({ kind: 'closed', message: 'connection closed (' + code + (reason ? ': ' + reason : '') + ')' });
  }

  /** Fails every queued, sent and running call of the page with `error`. */
  function failEverything(error) {
    var records = state.queue.concat(Array.from(state.inFlight.values()));
    state.queue = [];
    state.inFlight.clear();
    records.forEach(function (record) {
      callsById.delete(record.id);
      if (record.stub) finishStubWithError(record.stub, error, record.method);
      else if (record.reply) record.reply.reject(error);
    });
    // Calls started earlier whose completions were still to come.
    Array.from(stubHandlers.keys())
      .concat(Array.from(windowStubs))
      .forEach(function (stub) {
        finishStubWithError(stub, error);
      });
  }

  /** Starts over after stop(): a new session, unless the old one is still alive (4009). */
  function reconnect() {
    if (!state.stopped) {
      if (!state.ws) {
        state.retries = 0;
        connect();
      }
      return;
    }
    var keepSession = state.stopped.code === 4009;
    state.stopped = null;
    if (!keepSession) resetSession();
    state.retries = 0;
    connect();
  }

  function resetSession() {
    state.token = null;
    state.session = null;
    state.generation++;
    state.lastSeq = 0;
    state.ackedSeq = 0;
    state.lastSentId = 0; // X-DSBridge-After names calls of the current session only
    state.refused = null;
  }

  /** The session is gone: what it had in flight will never complete. */
  function sessionLost(why) {
    resetSession();
    var lost = Array.from(state.inFlight.values());
    state.inFlight.clear();
    var error = { kind: 'sessionLost', message: why };
    lost.forEach(function (record) {
      callsById.delete(record.id);
      if (record.stub) finishStubWithError(record.stub, error, record.method);
      else if (record.reply) record.reply.reject(error);
    });
    // Calls started earlier whose completions were still to come are lost too.
    Array.from(stubHandlers.keys())
      .concat(Array.from(windowStubs))
      .forEach(function (stub) {
        if (!isQueuedStub(stub)) finishStubWithError(stub, error);
      });
    if (state.ws) {
      dropSocket(state.ws);
      state.ws = null;
      state.welcomed = false;
    }
    emit('sessionLost', { reason: why });
    // The new session learns that the page's handlers are registered when it opens.
  }

  function isQueuedStub(stub) {
    return state.queue.some(function (record) {
      return record.stub === stub;
    });
  }

  // Outgoing messages: serialized when queued, coalesced into batch frames per microtask.

  function send(text, id) {
    state.outbox.push({ text: text, bytes: utf8Bytes(text), id: id || 0 });
    scheduleFlush();
  }

  function scheduleFlush() {
    if (!state.flushScheduled) {
      state.flushScheduled = true;
      Promise.resolve().then(flushOutbox);
    }
  }

  function flushOutbox() {
    state.flushScheduled = false;
    var ackDue = state.lastSeq > state.ackedSeq;
    if (!state.outbox.length && !ackDue) return;
    if (!state.ws || !state.welcomed || state.ws.readyState !== 1) {
      state.outbox.length = 0; // calls stay in inFlight (resent on welcome); acks, cancels go
      return;
    }
    var out = state.outbox;
    state.outbox = [];
    // An ack due goes first, with what is sent now (one frame, not two).
    if (ackDue) out.unshift(ackEntry());
    var frame = [];
    var bytes = 0;
    var ws = state.ws;
    function close() {
      if (!frame.length) return;
      var ids = [];
      var texts = frame.map(function (entry) {
        if (entry.id) ids.push(entry.id);
        return entry.text;
      });
      var text = texts.length === 1 ? texts[0] : '[' + texts.join(',') + ']';
      if (ids.length) state.frames.push({ ids: ids, bytes: bytes });
      ws.send(text);
      frame = [];
      bytes = 0;
    }
    for (var i = 0; i < out.length; i++) {
      var entry = out[i];
      var record = entry.id ? state.inFlight.get(entry.id) : null;
      var alone = record && record.alone;
      if (alone || frame.length >= MAX_BATCH || (frame.length && bytes + entry.bytes + 2 > state.frameBytes)) close();
      frame.push(entry);
      bytes += entry.bytes + 1;
      if (alone) close();
    }
    close();
    pruneFrames();
  }

  /** Forgets sent frames whose calls all have their ret. */
  function pruneFrames() {
    if (state.frames.length > 256) {
      state.frames = state.frames.filter(function (frame) {
        return frame.ids.some(function (id) {
          return state.inFlight.has(id);
        });
      });
    }
    while (state.frames.length) {
      var ids = state.frames[0].ids;
      var open = false;
      for (var i = 0; i < ids.length; i++) if (state.inFlight.has(ids[i])) open = true;
      if (open) return;
      state.frames.shift();
    }
  }

  function sendCall(record) {
    state.inFlight.set(record.id, record);
    if (record.id > state.lastSentId) state.lastSentId = record.id;
    send(record.text, record.id);
  }

  /**
   * Starts a socket call; `stub` is the envelope's _dscbstub, if any; `argText` is the
   * envelope's JSON (serialized now: later changes of the page's objects do not show);
   * `reply` ({resolve, reject}, for a call without stub) is settled by the call's ret;
   * `traceparent` (a W3C trace context string) goes with the call (PROTOCOL.md 2.2).
   * Returns the call id (after close codes the call fails on the next microtask).
   */
  function socketCall(method, argText, stub, reply, traceparent) {
    method = String(method);
    var id = state.nextId++;
    var record = {
      id: id,
      method: method,
      stub: stub || null,
      argText: argText,
      text: '{"t":"call","id":' + id + ',"method":' + JSON.stringify(method) + ',"arg":' + argText +
        (typeof traceparent === 'string' ? ',"traceparent":' + JSON.stringify(traceparent) : '') + '}',
      alone: false,
      reply: reply || null
    };
    callsById.set(id, record);
    if (stub && !stubHandlers.has(stub)) windowStubs.add(stub);
    if (state.stopped) {
      var stopped = state.stopped;
      callsById.delete(id);
      Promise.resolve().then(function () {
        callFailed(record, { kind: 'closed', message: 'connection closed (' + stopped.code + '); call dsBridge.reconnect()' });
      });
      return id;
    }
    if (state.welcomed && !state.queue.length && state.inFlight.size < CALL_WINDOW) {
      sendCall(record);
    } else {
      state.queue.push(record);
      if (!state.welcomed) connect();
    }
    return id;
  }

  /** A call that will not run (or whose outcome is unknown): its stub fails. */
  function callFailed(record, error) {
    if (record.stub) finishStubWithError(record.stub, error, record.method);
    else if (record.reply) record.reply.reject(error);
    else warn('call of "' + record.method + '" failed (' + error.kind + '): ' + error.message);
  }

  function refusedError(code, reason) {
    if (code === 1009) return { kind: 'tooLarge', message: 'the server refused the call: too large (' + reason + ')' };
    return { kind: 'rejected', message: 'the server refused the call (' + code + (reason ? ': ' + reason : '') + ')' };
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

  /**
   * Ready holds (hook.holdReady/releaseReady): shims whose page setup must run before native
   * calls are released (wvjb.js runs the queued WVJBCallbacks first) count themselves in
   * window._dsbridgeReadyHolds, also before this script has run; _dsb.dsinit waits while
   * the count is above 0.
   */
  function readyHolds() {
    return window._dsbridgeReadyHolds | 0;
  }

  /**
   * Queues _dsb.dsinit once per session when the page has registered handlers (DSBridge) or
   * a shim said it is ready (hook.ready), and no ready hold is left.
   */
  function ensureDsinit() {
    if (!(window._dsInit || state.pageReady) || readyHolds() > 0) return;
    if (state.dsinitGeneration === state.generation) return;
    state.dsinitGeneration = state.generation;
    state.dsinitId = socketCall('_dsb.dsinit', '{"data":null}');
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
    // flushOutbox puts the ack in front of what goes out (with the highest seq by then).
    scheduleFlush();
  }

  /** The outbox entry of an ack of everything received; the ack timer stops. */
  function ackEntry() {
    clearTimeout(state.ackTimer);
    state.ackTimer = null;
    state.ackedSeq = state.lastSeq;
    var text = '{"t":"ack","seq":' + state.lastSeq + '}';
    return { text: text, bytes: text.length, id: 0 };
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

  /**
   * After the server closed 1009 or 4000, the first frame it had not read (calls above
   * lastCall) is the one it refused. A call sent alone is failed and never sent again; the
   * calls of a batch go alone from now on (and for 1009 frames get smaller), so the next
   * refusal names one call. The server's close frame can be lost (a reset while the refused
   * frame is still arriving gives 1006): a frame that is the first one missing after three
   * closes in a row counts as refused too (too large when above 16 KiB).
   */
  function settleRefusal(lastCall) {
    var refused = state.refused;
    state.refused = null;
    if (!refused) return;
    for (var i = 0; i < refused.frames.length; i++) {
      var frame = refused.frames[i];
      var ids = frame.ids.filter(function (id) {
        return id > lastCall && state.inFlight.has(id);
      });
      if (!ids.length) continue;
      var code = refused.code;
      var reason = refused.reason;
      if (code !== 1009 && code !== 4000) {
        if (state.strikes && state.strikes.id === ids[0]) state.strikes.count++;
        else state.strikes = { id: ids[0], count: 1 };
        if (state.strikes.count < 3) return;
        code = frame.bytes > 16384 ? 1009 : 4000;
        reason = 'the connection closed ' + state.strikes.count + ' times in a row while it was sent';
      }
      state.strikes = null;
      if (frame.ids.length === 1) {
        var record = state.inFlight.get(ids[0]);
        state.inFlight.delete(ids[0]);
        callsById.delete(ids[0]);
        warn('the server refused call ' + ids[0] + ' ("' + record.method + '"): ' + code + ' ' + reason);
        callFailed(record, refusedError(code, reason));
      } else {
        ids.forEach(function (id) {
          state.inFlight.get(id).alone = true;
        });
        if (code === 1009) state.frameBytes = Math.max(MIN_FRAME_BYTES, Math.floor(frame.bytes / 2));
      }
      return;
    }
    state.strikes = null;
  }

  function onWelcome(m) {
    state.token = m.token;
    state.session = m.session;
    if (typeof m.heartbeat === 'number' && m.heartbeat > 0) state.heartbeat = m.heartbeat;
    state.welcomed = true;
    state.retries = 0;
    state.frames = [];
    armSilenceTimer();
    // Calls the server has not received (id > lastCall) go again, in order, then the queue.
    var lastCall = typeof m.lastCall === 'number' ? m.lastCall : 0;
    settleRefusal(lastCall);
    var resend = [];
    state.inFlight.forEach(function (record, id) {
      if (id > lastCall) resend.push(record);
    });
    resend.sort(function (a, b) {
      return a.id - b.id;
    });
    resend.forEach(function (record) {
      send(record.text, record.id);
    });
    // A new session learns here that the page has registered handlers (PROTOCOL 5).
    ensureDsinit();
    sendQueued();
    flushOutbox();
    emit('connected', { session: m.session, resumed: !!m.resumed });
  }

  function onRet(m) {
    if (state.inFlight.delete(m.id) && state.queue.length) sendQueued();
    var call = callsById.get(m.id);
    callsById.delete(m.id);
    if (!call) return;
    if (call.reply) {
      if (m.code === 0) call.reply.resolve(m.data);
      else call.reply.reject(m.error || { kind: 'failed', message: 'not handled' });
      return;
    }
    if (m.code !== 0) {
      var error = m.error || { kind: 'failed', message: 'not handled' };
      if (!isChannelStub(call.stub)) {
        warn('call ' + m.id + ' ("' + call.method + '") failed (' + error.kind + '): ' + error.message);
      }
      if (call.stub) finishStubWithError(call.stub, error, call.method);
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
    if (m.error) {
      warn(stub + ' ended with an error (' + m.error.kind + '): ' + m.error.message);
      emit('callFailed', { stub: stub, method: null, kind: m.error.kind, message: m.error.message });
    } else if (!m.cancelled && typeof fn === 'function') {
      try {
        fn(m.data);
      } catch (e) {
        reportPageError('callback ' + stub + ' threw', e);
      }
    }
    if (ending) {
      windowStubs.delete(stub);
      delete window[stub];
    }
  }

  function finishStubWithError(stub, error, method) {
    var handler = stubHandlers.get(stub);
    if (handler) {
      stubHandlers.delete(stub);
      handler.error(error);
    } else if (windowStubs.has(stub) || window[stub]) {
      windowStubs.delete(stub);
      delete window[stub];
      emit('callFailed', { stub: stub, method: method || null, kind: error.kind, message: error.message });
    }
  }

  /**
   * Sends a native-initiated call's answer: _dsb.returnValue over the socket, serialized now.
   * An answer that is not JSON (a cycle, a BigInt) becomes an error answer; returns false then.
   */
  function returnValue(answer) {
    var text;
    try {
      text = JSON.stringify({ data: answer });
    } catch (e) {
      reportPageError('the answer to native call ' + answer.id + ' cannot be sent as JSON', e);
      text = JSON.stringify({ data: { id: answer.id, complete: true, error: 'the answer is not JSON: ' + errorText(e) } });
      socketCall('_dsb.returnValue', text);
      return false;
    }
    socketCall('_dsb.returnValue', text);
    return true;
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
    if (!dsf || !dsaf) return null;
    if (typeof dsf[method] === 'function') return { f: dsf[method], ob: dsf, async: false };
    if (typeof dsaf[method] === 'function') return { f: dsaf[method], ob: dsaf, async: true };
    var parts = String(method).split('.');
    if (parts.length < 2) return null;
    var name = parts.pop();
    var namespace = parts.join('.');
    var ob = (dsf._obs && dsf._obs[namespace]) || {};
    if (typeof ob[name] === 'function') return { f: ob[name], ob: ob, async: false };
    ob = (dsaf._obs && dsaf._obs[namespace]) || {};
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
        reportPageError('handler "' + method + '" threw', e);
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
      if (!returnValue({ id: callbackId, data: data, complete: done })) done = true;
    });
    try {
      found.f.apply(found.ob, args);
    } catch (e) {
      if (!done) {
        done = true;
        returnValue({ id: callbackId, complete: true, error: errorText(e) });
      }
      reportPageError('handler "' + method + '" threw', e);
    }
  }

  /**
   * Every native-initiated call goes through window._handleMessageFromNative, as in a
   * WebView, so code that wraps it sees the call.
   */
  function onInvoke(m) {
    var args = m.args || [];
    var served = servedMethods.get(m.method);
    if (served) {
      runServed(served, m.callbackId, Array.isArray(args) ? args : [args]);
      return;
    }
    if (!findHandler(m.method)) {
      // The original would drop it silently and leave the native caller waiting.
      returnValue({ id: m.callbackId, complete: true, error: 'method "' + m.method + '" is not registered' });
      return;
    }
    var entry = window._handleMessageFromNative;
    if (typeof entry !== 'function') {
      returnValue({ id: m.callbackId, complete: true, error: 'window._handleMessageFromNative is not a function' });
      return;
    }
    try {
      entry.call(window, { method: m.method, callbackId: m.callbackId, data: JSON.stringify(args) });
    } catch (e) {
      // The original library lets a handler's exception out (ours answers by itself).
      returnValue({ id: m.callbackId, complete: true, error: errorText(e) });
      reportPageError('handler "' + m.method + '" threw', e);
    }
  }

  /**
   * Runs a method another shim serves (hook.serve) and answers with its result, a promise
   * awaited, or with the text of what it threw or rejected with.
   */
  function runServed(fn, callbackId, args) {
    var value;
    try {
      value = fn(args);
    } catch (e) {
      returnValue({ id: callbackId, complete: true, error: errorText(e) });
      return;
    }
    Promise.resolve(value).then(
      function (result) {
        returnValue({ id: callbackId, data: result, complete: true });
      },
      function (e) {
        returnValue({ id: callbackId, complete: true, error: errorText(e) });
      }
    );
  }

  // ---------------------------------------------------------------------------------------
  // Channel API for other shims (web/webkit.js, web/wvjb.js): on window._dsbridge, next to
  // the hook.

  /** The envelope's JSON, through JSON like the original: functions and undefined vanish. */
  function envelopeText(args, stub) {
    var arg = { data: args === undefined ? null : args };
    if (stub) arg._dscbstub = stub;
    return JSON.stringify(arg);
  }

  /** An Error for a failed call, with the wire's `kind` (as dsBridge.invoke rejects). */
  function callError(error) {
    var e = new Error(error.message || error.kind);
    e.kind = error.kind;
    return e;
  }

  /**
   * A socket call of `method` with `data`. Without a stub (the default) the promise resolves
   * with its ret's data: for sync methods (_webkit.postMessage). With options {callback: true}
   * the call carries a stub, as a DSBridge call with a callback does, and the promise
   * resolves with the data of its final cb (progress values are ignored): for async methods
   * (_wvjb.call). Either way it rejects with an Error carrying `kind` (the ret's error, or
   * closed, sessionLost, rejected, cancelled); the channel logs nothing, the shim decides.
   * `data` is serialized now; a value JSON cannot hold throws.
   */
  function request(method, data, options) {
    var stub = options && options.callback ? CHANNEL_STUB + ++state.channelStubs : null;
    var text = envelopeText(data, stub);
    return new Promise(function (resolve, reject) {
      if (!stub) {
        socketCall(String(method), text, null, {
          resolve: resolve,
          reject: function (error) {
            reject(callError(error));
          }
        });
        return;
      }
      stubHandlers.set(stub, {
        data: function (value, complete) {
          if (complete) resolve(value);
        },
        error: function (error) {
          reject(callError(error));
        }
      });
      socketCall(String(method), text, stub);
    });
  }

  /** Answers native-initiated calls (invoke) of `method` with fn(args): a value or a promise. */
  function serve(method, fn) {
    if (typeof fn === 'function') servedMethods.set(String(method), fn);
    else servedMethods.delete(String(method));
  }

  /**
   * The page is ready (PROTOCOL 5, _dsb.dsinit), in this session and every later one; sent
   * once no ready hold is left.
   */
  function pageReady() {
    state.pageReady = true;
    ensureDsinit();
  }

  /** One more ready hold; a _dsb.dsinit still queued (not sent) is taken back. */
  function holdReady() {
    window._dsbridgeReadyHolds = readyHolds() + 1;
    if (state.dsinitGeneration === state.generation && unqueue(state.dsinitId)) state.dsinitGeneration = -1;
  }

  /** One ready hold less; _dsb.dsinit goes out once none is left and the page is ready. */
  function releaseReady() {
    if (readyHolds() > 0) window._dsbridgeReadyHolds = readyHolds() - 1;
    ensureDsinit();
  }

  // ---------------------------------------------------------------------------------------
  // window._dsbridge: the transport the original dsbridge.js 3.1.4 looks for first. Installed
  // in every mode, so an original library loaded before or after this script works.

  function installHook() {
    var hook = {
      /** The original's transport hook: returns '{"code":…,"data":…}' like a WebView. */
      call: function (method, argJSON) {
        method = String(method);
        var arg = null;
        var argText = String(argJSON);
        try {
          arg = JSON.parse(argText);
        } catch (e) {
          argText = JSON.stringify(argText); // not JSON: sent as a string (badArgument)
        }
        var stub = arg && typeof arg === 'object' ? arg._dscbstub : undefined;
        if (method === '_dsb.dsinit') {
          // Sent over the socket with the session's opening, and again for a new session.
          ensureDsinit();
          return '{"code":0,"data":""}';
        }
        if (method === '_dsb.returnValue') {
          // An answer to a native-initiated call: ordered with the socket traffic.
          socketCall(method, argText);
          return '{"code":0,"data":""}';
        }
        if (typeof stub === 'string') {
          socketCall(method, argText, stub);
          return '{"code":0,"data":""}';
        }
        return syncCallText(method, argText);
      },
      on: on,
      off: off,
      reconnect: reconnect,
      request: request,
      serve: serve,
      ready: pageReady,
      holdReady: holdReady,
      releaseReady: releaseReady,
      get session() {
        return state.session;
      }
    };
    Object.defineProperty(hook, '__dsbridged', { value: true });
    if (channelOnly) Object.defineProperty(hook, '__channelOnly', { value: true });
    window._dsbridge = hook;
  }

  // ---------------------------------------------------------------------------------------
  // The DSBridge API (3.1.4 semantics) plus invoke/on/reconnect: installed as window.dsBridge
  // when no original library is there (installGlobals), else only the module's.

  var bridge = {
    call: function (method, args, cb) {
      if (typeof args === 'function') {
        cb = args;
        args = {};
      }
      method = String(method); // as the original's prompt("_dsbridge=" + method) does
      if (typeof cb === 'function') {
        var stub = nextStubName();
        window[stub] = cb;
        var text;
        try {
          text = envelopeText(args, stub);
        } catch (e) {
          delete window[stub];
          throw e;
        }
        socketCall(method, text, stub);
        return '';
      }
      return parseData(syncCallText(method, envelopeText(args)));
    },

    register: function (name, fun, asyn) {
      var q = asyn ? window._dsaf : window._dsf;
      window._dsInit = true;
      // The server learns that the page is ready over the socket (PROTOCOL 5).
      ensureDsinit();
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
     * options.onProgress, rejects with an Error carrying `kind`; options.signal cancels;
     * options.traceparent (a W3C trace context, e.g. from the page's OpenTelemetry span)
     * makes the daemon's span of the call a child of that span (tracing on).
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
        var text = envelopeText(args, stub);
        var id;
        var onAbort = function () {
          if (!stubHandlers.has(stub)) return;
          stubHandlers.delete(stub);
          if (!unqueue(id)) send(JSON.stringify({ t: 'cancel', id: id }));
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
                  reportPageError('onProgress threw', e);
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
        id = socketCall(method, text, stub, null, options.traceparent);
      });
    },

    /** Connection events: 'connected', 'disconnected', 'sessionLost', 'callFailed'. */
    on: on,
    off: off,

    /** After the page stopped reconnecting (closePage, 1008, 4009, 4029): start again. */
    reconnect: reconnect
  };

  Object.defineProperty(bridge, '__dsbridged', { value: true });
  Object.defineProperty(bridge, 'session', {
    get: function () {
      return state.session;
    },
    enumerable: false
  });

  /** DSBridge's globals, with `bridge` as window.dsBridge (no original library here). */
  function installGlobals() {
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
  }

  // ---------------------------------------------------------------------------------------
  // The client for dsbridge.mjs: window[Symbol.for('dsbridged.client')]() returns the
  // module's exports over this page's one session, whichever of the script and the module
  // started it. Made at the first request: the installed dsBridge, or, when the original
  // library owns the globals (hook mode), a dsBridge of the module's own on the same session
  // and handler tables; over a channel that webkit.js or wvjb.js started, DSBridge's globals
  // are installed then.

  var client = null;

  function clientApi() {
    if (!client) {
      if (!window._dsf) installGlobals();
      client = exportsOf(bridge, configure);
    }
    return client;
  }

  /**
   * The module's configure({server, auth}). `server`: an http(s) or ws(s) URL whose origin
   * is the daemon's; it must come before the page first uses the server (the top level of
   * the importing module is early enough): a different one later throws. `auth`: the shared
   * secret (null for none), read at each use like window.DSBRIDGE_AUTH.
   */
  function configure(options) {
    options = options || {};
    if (options.server !== undefined && options.server !== null) {
      var url = new URL(String(options.server), window.location.href);
      var protocol = url.protocol.replace(/^ws/, 'http');
      if (protocol !== 'http:' && protocol !== 'https:') {
        throw new TypeError('[dsbridge] configure: server must be an http(s) or ws(s) URL, not ' + options.server);
      }
      var origin = protocol + '//' + url.host;
      if (BASE !== null && origin !== BASE) {
        throw new Error('[dsbridge] configure: this page already uses the server ' + BASE +
          '; configure the server before the first call (at the top level of the importing module)');
      }
      config.server = origin;
    }
    if (options.auth !== undefined) config.auth = options.auth || null;
  }

  /** Opens the socket: now as a script, after the evaluation of the importing module as one. */
  function start() {
    if (!asModule) {
      connect();
      return;
    }
    Promise.resolve().then(function () {
      held = false;
      connect();
    });
  }

  // ---------------------------------------------------------------------------------------
  // Start

  installHook();
  Object.defineProperty(window, CLIENT, { value: clientApi });

  if (channelOnly) {
    connect();
    return;
  }

  if (hookMode) {
    // The original sends _dsb.dsinit from a timer set when it loaded; when the browser ran
    // that timer before this script arrived, it went nowhere. Queue it now.
    ensureDsinit();
    start();
    return;
  }

  installGlobals();
  start();

  // ---------------------------------------------------------------------------------------
  // The module's exports (hoisted; also for the app's API below)

  /** dsBridge, its methods as plain functions (no `this` needed), and configure. */
  function exportsOf(api, configureFn) {
    var exported = { dsBridge: api, configure: configureFn };
    ['call', 'register', 'registerAsyn', 'hasNativeMethod', 'disableJavascriptDialogBlock', 'close', 'invoke', 'on',
      'off', 'reconnect'].forEach(function (name) {
      exported[name] = function () {
        return api[name].apply(api, arguments);
      };
    });
    return exported;
  }

  function publishApp(app) {
    var exported = exportsOf(app, function () {}); // inside the app there is no server to set
    Object.defineProperty(window, CLIENT, {
      value: function () {
        return exported;
      }
    });
  }

  // ---------------------------------------------------------------------------------------
  // Inside a real DSBridge WebView: the 3.1.4 API over the app's own bridge (hoisted).

  /** Returns the app's API; installs it as DSBridge's globals with `withGlobals`. */
  function installAppBridge(withGlobals) {
    function transport(method, argJSON) {
      if (window._dsbridge) return window._dsbridge.call(method, argJSON);
      return prompt('_dsbridge=' + method, argJSON);
    }
    var app = {
      call: function (method, args, cb) {
        if (typeof args === 'function') {
          cb = args;
          args = {};
        }
        var arg = { data: args === undefined ? null : args };
        if (typeof cb === 'function') {
          var stub = 'dscb' + window.dscb++;
          window[stub] = cb;
          arg._dscbstub = stub;
        }
        var ret = transport(method, JSON.stringify(arg));
        return JSON.parse(ret || '{}').data;
      },
      register: function (name, fun, asyn) {
        var q = asyn ? window._dsaf : window._dsf;
        if (!window._dsInit) {
          window._dsInit = true;
          setTimeout(function () {
            app.call('_dsb.dsinit');
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
        app.call('_dsb.closePage');
      },
      /** Promise form of call with a callback: resolves with the first value (no errors). */
      invoke: function (method, args) {
        return new Promise(function (resolve) {
          app.call(method, args, resolve);
        });
      },
      on: function () {},
      off: function () {},
      reconnect: function () {},
      session: null
    };
    Object.defineProperty(app, '__dsbridged', { value: true });
    if (!withGlobals) return app;
    var appGlobals = {
      _dsf: { _obs: {} },
      _dsaf: { _obs: {} },
      dscb: 0,
      dsBridge: app,
      bridge: app,
      close: app.close,
      _handleMessageFromNative: function (info) {
        var args = JSON.parse(info.data);
        var ret = { id: info.callbackId, complete: true };
        var dsf = window._dsf;
        var dsaf = window._dsaf;
        function sync(f, ob) {
          ret.data = f.apply(ob, args);
          app.call('_dsb.returnValue', ret);
        }
        function asyn(f, ob) {
          args.push(function (data, complete) {
            ret.data = data;
            ret.complete = complete !== false;
            app.call('_dsb.returnValue', ret);
          });
          f.apply(ob, args);
        }
        if (typeof dsf[info.method] === 'function') return sync(dsf[info.method], dsf);
        if (typeof dsaf[info.method] === 'function') return asyn(dsaf[info.method], dsaf);
        var parts = String(info.method).split('.');
        if (parts.length < 2) return;
        var name = parts.pop();
        var namespace = parts.join('.');
        var ob = dsf._obs[namespace] || {};
        if (typeof ob[name] === 'function') return sync(ob[name], ob);
        ob = dsaf._obs[namespace] || {};
        if (typeof ob[name] === 'function') return asyn(ob[name], ob);
      }
    };
    for (var k in appGlobals) window[k] = appGlobals[k];
    app.register('_hasJavascriptMethod', function (method) {
      var name = method.split('.');
      if (name.length < 2) return !!(window._dsf[name] || window._dsaf[name]);
      var m = name.pop();
      var ob = window._dsf._obs[name.join('.')] || window._dsaf._obs[name.join('.')];
      return ob && !!ob[m];
    });
    return app;
  }
})();

// SPDX-License-Identifier: MIT
// webkit.js for dsbridged: WKWebView's script message handlers for ordinary browser pages
// (PROTOCOL.md 9.2), over the session channel of web/dsbridge.js.
//
// - window.webkit.messageHandlers.NAME.postMessage(body) exists for every NAME and returns a
//   Promise of the native handler's reply (WKScriptMessageHandlerWithReply): a call of
//   _webkit.postMessage with data {"name": NAME, "body": BODY}. A body that is not JSON
//   (undefined, a function, a cycle, NaN, a Date or another non-plain object, nesting deeper
//   than the server accepts) is rejected at once with a TypeError.
// - Native code calls page functions by path (as apps do with evaluateJavaScript):
//   _page.callFunction [PATH, ARG...] calls the function at PATH, a dot-separated path of own
//   properties from window, and answers with its result (a promise is awaited). Only paths
//   are resolved, never source text; functions that run source text (eval, Function,
//   setTimeout, ...) are refused. webkitBridge.allowFunctionCalls(false) forbids these calls,
//   webkitBridge.allowFunctionCalls(["wadInterface.", "bridge."]) limits them to prefixes.
// - Inside a real WKWebView (window.webkit.messageHandlers exists before this script runs)
//   it steps aside: only a no-op webkitBridge is added.
//
// The channel: window._dsbridge, the hook web/dsbridge.js installs (session, resume,
// replay, acks, heartbeats). When the page loads dsbridge.js itself (before the document is
// parsed), both use that one channel. Otherwise, once the document is parsed, this script
// loads dsbridge.js from its own directory with data-channel-only (no DSBridge globals);
// messages posted before then wait, in order. The page counts as ready for native calls
// (_dsb.dsinit) once the document is parsed.
// Plain ES2017, no dependencies.
(function () {
  'use strict';

  var script = document.currentScript;
  var native = window.webkit && window.webkit.messageHandlers;
  if (native) {
    if (!native.__dsbridged && !window.webkitBridge) {
      // A real WKWebView: the app answers postMessage and evaluates page functions itself.
      window.webkitBridge = { inApp: true, allowFunctionCalls: function () {}, session: null };
    }
    return;
  }

  var POST_METHOD = '_webkit.postMessage';
  var CALL_METHOD = '_page.callFunction';
  // Levels a body may nest: the server's default maxDepth (128) counts a batch's array, the
  // call, its arg, the data object and the body itself.
  var MAX_BODY_DEPTH = 124;

  function warn() {
    if (window.console && console.warn) {
      var args = Array.prototype.slice.call(arguments);
      args.unshift('[webkit.js]');
      console.warn.apply(console, args);
    }
  }

  function attr(name) {
    return script && script.getAttribute ? script.getAttribute(name) : null;
  }

  // ---------------------------------------------------------------------------------------
  // The channel

  var channel = null; // window._dsbridge once found or loaded
  var waiting = []; // {data, resolve, reject}: posted before the channel existed
  var unavailable = null; // an Error once the channel cannot be had

  function findChannel() {
    var hook = window._dsbridge;
    return hook && hook.__dsbridged && typeof hook.request === 'function' ? hook : null;
  }

  function whenParsed(fn) {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', fn, { once: true });
    else fn();
  }

  function attach(found) {
    channel = found;
    channel.serve(CALL_METHOD, callFunction);
    var queued = waiting;
    waiting = [];
    queued.forEach(function (entry) {
      channel.request(POST_METHOD, entry.data).then(entry.resolve, entry.reject);
    });
    whenParsed(function () {
      channel.ready();
    });
  }

  function giveUp(message) {
    unavailable = new Error(message);
    unavailable.kind = 'unavailable';
    warn(message);
    var queued = waiting;
    waiting = [];
    queued.forEach(function (entry) {
      entry.reject(unavailable);
    });
  }

  /** Loads dsbridge.js (channel only) from data-dsbridge or this script's directory. */
  function loadChannel() {
    var src;
    try {
      src = new URL(attr('data-dsbridge') || 'dsbridge.js', (script && script.src) || window.location.href).href;
    } catch (e) {
      giveUp('cannot tell where dsbridge.js is: ' + e.message);
      return;
    }
    var tag = document.createElement('script');
    tag.src = src;
    tag.setAttribute('data-channel-only', '');
    ['data-server', 'data-auth'].forEach(function (name) {
      if (attr(name) !== null) tag.setAttribute(name, attr(name));
    });
    tag.onload = function () {
      var found = findChannel();
      if (found) attach(found);
      else giveUp('dsbridge.js from ' + src + ' did not start a dsbridged channel (inside a DSBridge app?)');
    };
    tag.onerror = function () {
      giveUp('cannot load ' + src + ': postMessage needs it');
    };
    (document.head || document.documentElement).appendChild(tag);
  }

  // ---------------------------------------------------------------------------------------
  // postMessage

  /** Why `value` is not JSON (a path and a reason), or null when it is. */
  function jsonProblem(value, path, stack) {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return null;
      case 'number':
        return isFinite(value) ? null : path + ' is ' + value;
      case 'object':
        break;
      default:
        return path + ' is ' + (typeof value === 'undefined' ? 'undefined' : 'a ' + typeof value);
    }
    if (value === null) return null;
    if (stack.indexOf(value) !== -1) return path + ' refers back to itself';
    if (stack.length >= MAX_BODY_DEPTH) return path + ' nests deeper than ' + MAX_BODY_DEPTH + ' levels';
    var isArray = Array.isArray(value);
    var proto = Object.getPrototypeOf(value);
    if (!isArray && proto !== Object.prototype && proto !== null) {
      var kind = (value.constructor && value.constructor.name) || 'non-plain object';
      return path + ' is a ' + kind + ' (only plain objects, arrays, strings, finite numbers, booleans and null)';
    }
    stack.push(value);
    var problem = null;
    if (isArray) {
      for (var i = 0; i < value.length && !problem; i++) problem = jsonProblem(value[i], path + '[' + i + ']', stack);
    } else {
      var keys = Object.keys(value);
      for (var k = 0; k < keys.length && !problem; k++) problem = jsonProblem(value[keys[k]], path + '.' + keys[k], stack);
    }
    stack.pop();
    return problem;
  }

  function postMessage(name, body) {
    var problem = jsonProblem(body, 'body', []);
    if (problem) {
      var error = new TypeError('postMessage to "' + name + '": the body is not JSON: ' + problem);
      error.kind = 'badArgument';
      return Promise.reject(error);
    }
    if (unavailable) return Promise.reject(unavailable);
    var data = { name: name, body: body };
    if (channel) return channel.request(POST_METHOD, data);
    // Copied now, as the channel serializes when it sends: later changes do not show.
    data = JSON.parse(JSON.stringify(data));
    return new Promise(function (resolve, reject) {
      waiting.push({ data: data, resolve: resolve, reject: reject });
    });
  }

  var handlerCache = Object.create(null);
  var messageHandlers = new Proxy(Object.create(null), {
    get: function (target, name) {
      if (name === '__dsbridged') return true;
      if (typeof name !== 'string') return undefined;
      if (!handlerCache[name]) {
        handlerCache[name] = Object.freeze({
          postMessage: function (body) {
            return postMessage(name, body);
          }
        });
      }
      return handlerCache[name];
    },
    has: function (target, name) {
      return typeof name === 'string';
    },
    set: function () {
      return true; // handlers come from native code: assignments are ignored
    }
  });

  // ---------------------------------------------------------------------------------------
  // _page.callFunction

  var allowed = true; // true, false, or an array of path prefixes

  function allowFunctionCalls(rule) {
    if (rule === true || rule === false) {
      allowed = rule;
      return;
    }
    if (Array.isArray(rule) && rule.every(function (p) { return typeof p === 'string'; })) {
      allowed = rule.slice();
      return;
    }
    throw new TypeError('webkitBridge.allowFunctionCalls takes true, false or an array of path prefixes');
  }

  /** Why a native call of `path` is refused by the page's rule, or null. */
  function refusal(path) {
    if (allowed === true) return null;
    if (allowed === false) return 'function calls are forbidden by the page: ' + path;
    for (var i = 0; i < allowed.length; i++) if (path.indexOf(allowed[i]) === 0) return null;
    return 'function call not allowed by the page: ' + path + ' (allowed prefixes: ' + allowed.join(', ') + ')';
  }

  /** Functions that would run source text given a string: never called by path. */
  function runsSource(fn) {
    return (
      fn === window.eval ||
      fn === window.Function ||
      fn === window.setTimeout ||
      fn === window.setInterval ||
      fn === window.open ||
      fn === window.location.assign ||
      fn === window.location.replace
    );
  }

  function callFunction(args) {
    var path = args[0];
    if (typeof path !== 'string') throw new Error('not a function ' + String(path));
    var refused = refusal(path);
    if (refused) throw new Error(refused);
    var owner = null;
    var target = window;
    var parts = path.split('.');
    for (var i = 0; i < parts.length; i++) {
      var part = parts[i];
      var container = target !== null && (typeof target === 'object' || typeof target === 'function');
      if (!part || !container || !Object.prototype.hasOwnProperty.call(target, part)) {
        throw new Error('not a function ' + path);
      }
      owner = target;
      target = target[part];
    }
    if (typeof target !== 'function') throw new Error('not a function ' + path);
    if (runsSource(target)) throw new Error('not callable by path (it runs source text): ' + path);
    return target.apply(owner, args.slice(1));
  }

  // ---------------------------------------------------------------------------------------
  // Globals

  if (window.webkit && typeof window.webkit === 'object') window.webkit.messageHandlers = messageHandlers;
  else window.webkit = { messageHandlers: messageHandlers };

  var api = {
    inApp: false,
    allowFunctionCalls: allowFunctionCalls
  };
  Object.defineProperty(api, 'session', {
    get: function () {
      return channel ? channel.session : null;
    },
    enumerable: true
  });
  window.webkitBridge = api;

  var found = findChannel();
  if (found) attach(found);
  else
    whenParsed(function () {
      var later = findChannel();
      if (later) attach(later);
      else loadChannel();
    });
})();

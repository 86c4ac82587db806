// SPDX-License-Identifier: MIT
// wvjb.js for dsbridged: the WebViewJavascriptBridge 6.x page API (marcuswestin/
// WebViewJavascriptBridge: registerHandler, callHandler, disableJavscriptAlertBoxSafetyTimeout)
// over a dsbridged session channel instead of an app's WebView (PROTOCOL.md 9.1).
//
// A page written for the app keeps its setupWebViewJavascriptBridge function and gets this
// script tag: <script src="https://server/wvjb.js"></script>. Like the app's injection, the
// bridge appears once the document has been parsed (DOMContentLoaded, or at once when this
// script runs later), then the callbacks queued in window.WVJBCallbacks run on the next task,
// and only then is the page reported ready (_dsb.dsinit), so native calls made early find the
// handlers they registered.
//
// The session channel (resume, replay, acks, heartbeats, limits) is web/dsbridge.js's: this
// script uses the channel API of its window._dsbridge hook. When the page loads dsbridge.js
// itself (in any order, before DOMContentLoaded), both APIs share its one session; otherwise
// this script loads dsbridge.js from its own directory in channel-only mode (no DSBridge
// globals).
//
// Inside a real app that injected the original bridge (window.WebViewJavascriptBridge exists
// when this script runs or when the document has been parsed), it steps aside and opens no
// socket.
//
// Wire: page -> native is a call of _wvjb.call with data {handlerName, data} (with a stub
// when a responseCallback is given); native -> page is an invoke of _wvjb.handle with args
// [{handlerName, data}], answered with the handler's first response.
(function () {
  'use strict';

  var script = document.currentScript;
  if (window.WebViewJavascriptBridge) return; // the app's original, or this script ran already

  function warn() {
    if (window.console && console.warn) {
      var args = Array.prototype.slice.call(arguments);
      args.unshift('[wvjb]');
      console.warn.apply(console, args);
    }
  }

  /** An exception of the page's own code: console.error, and thrown again on a new task. */
  function reportPageError(what, e) {
    if (window.console && console.error) console.error('[wvjb] ' + what + ':', e);
    setTimeout(function () {
      throw e;
    }, 0);
  }

  function errorText(e) {
    return e && e.message ? String(e.message) : String(e);
  }

  /** dsbridge.js's hook when its channel API is there (dsbridged's, not an app's). */
  function channel() {
    var hook = window._dsbridge;
    return hook && hook.__dsbridged && typeof hook.handleInvokes === 'function' ? hook : null;
  }

  // Hold the page's readiness until the WVJBCallbacks ran (dsbridge.js reads the count).
  if (channel()) channel().holdReady();
  else window._dsbridgeReadyHolds = (window._dsbridgeReadyHolds | 0) + 1;

  function releaseHold() {
    var hook = channel();
    if (hook) {
      hook.releaseReady();
    } else if ((window._dsbridgeReadyHolds | 0) > 0) {
      window._dsbridgeReadyHolds--;
    }
  }

  var handlers = new Map(); // handler name (any string) -> function (data, responseCallback)
  var dispatchWithTimeoutSafety = true;

  function registerHandler(handlerName, handler) {
    handlers.set(String(handlerName), handler);
  }

  function disableJavscriptAlertBoxSafetyTimeout() {
    dispatchWithTimeoutSafety = false;
  }

  /** callHandler(name[, data][, responseCallback]): a function as second argument is the callback. */
  function callHandler(handlerName, data, responseCallback) {
    if (typeof data === 'function' && responseCallback === undefined) {
      responseCallback = data;
      data = null;
    }
    var message = { handlerName: String(handlerName), data: data === undefined ? null : data };
    var done = null;
    if (typeof responseCallback === 'function') {
      done = function (error, value) {
        // No handler (methodNotFound): the channel logged a warning; like the original, the
        // callback is not called. Other errors (session lost, closed) are logged here.
        if (error) {
          if (error.kind !== 'methodNotFound') {
            warn('callHandler("' + message.handlerName + '") failed (' + error.kind + '): ' + error.message);
          }
          return;
        }
        try {
          responseCallback(value);
        } catch (e) {
          reportPageError('responseCallback of "' + message.handlerName + '" threw', e);
        }
      };
    }
    bridgeChannel.request('_wvjb.call', message, done);
  }

  /** An invoke of _wvjb.handle: runs the page's handler; its first response answers. */
  function onNativeCall(method, args, reply) {
    if (method !== '_wvjb.handle') {
      reply(undefined, 'no method ' + method);
      return;
    }
    var message = args[0] && typeof args[0] === 'object' ? args[0] : {};
    var name = String(message.handlerName);
    function run() {
      var handler = handlers.get(name);
      if (typeof handler !== 'function') {
        warn('no handler for message from native:', message);
        reply(undefined, 'no handler ' + name);
        return;
      }
      var responded = false;
      try {
        handler(message.data === undefined ? null : message.data, function (responseData) {
          if (responded) return;
          responded = true;
          reply(responseData === undefined ? null : responseData);
        });
      } catch (e) {
        if (!responded) {
          responded = true;
          reply(undefined, errorText(e));
        }
        reportPageError('handler "' + name + '" threw', e);
      }
    }
    // The original dispatches on a new task unless the safety timeout is disabled.
    if (dispatchWithTimeoutSafety) setTimeout(run, 0);
    else run();
  }

  var bridgeChannel = null;

  function install(hook) {
    bridgeChannel = hook;
    hook.handleInvokes('_wvjb', onNativeCall);
    var bridge = {
      registerHandler: registerHandler,
      callHandler: callHandler,
      disableJavscriptAlertBoxSafetyTimeout: disableJavscriptAlertBoxSafetyTimeout
    };
    Object.defineProperty(bridge, '__dsbridged', { value: true });
    window.WebViewJavascriptBridge = bridge;
    // What the app's disableJavscriptAlertBoxSafetyTimeout sends; answered, so a native
    // caller awaiting it returns (the original's handler never responds).
    registerHandler('_disableJavascriptAlertBoxSafetyTimeout', function (data, responseCallback) {
      disableJavscriptAlertBoxSafetyTimeout();
      responseCallback(null);
    });
    setTimeout(function () {
      var callbacks = window.WVJBCallbacks;
      try {
        delete window.WVJBCallbacks;
      } catch (e) {
        window.WVJBCallbacks = undefined; // declared with var: not deletable
      }
      if (callbacks && typeof callbacks.length === 'number') {
        for (var i = 0; i < callbacks.length; i++) {
          try {
            callbacks[i](bridge);
          } catch (e) {
            reportPageError('a WVJBCallbacks callback threw', e);
          }
        }
      }
      releaseHold(); // the page is ready: held native calls go out now
    }, 0);
  }

  /** Loads dsbridge.js from this script's directory in channel-only mode. */
  function loadChannel(done) {
    var s = document.createElement('script');
    var base = script && script.src ? script.src : window.location.href;
    s.src = new URL('dsbridge.js', base).href;
    s.setAttribute('data-dsbridged-channel', '');
    ['data-server', 'data-auth'].forEach(function (name) {
      if (script && script.hasAttribute(name)) s.setAttribute(name, script.getAttribute(name));
    });
    s.onload = function () {
      done(channel());
    };
    s.onerror = function () {
      done(null);
    };
    (document.head || document.documentElement).appendChild(s);
  }

  function start() {
    if (window.WebViewJavascriptBridge) {
      // Injected by an app while the page was parsed: step aside.
      releaseHold();
      return;
    }
    var hook = channel();
    if (hook) {
      install(hook);
      return;
    }
    loadChannel(function (loaded) {
      if (window.WebViewJavascriptBridge) {
        releaseHold();
        return;
      }
      if (!loaded) {
        warn('cannot load the session channel (dsbridge.js next to wvjb.js); WebViewJavascriptBridge is not available');
        releaseHold();
        return;
      }
      install(loaded);
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();

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
// script uses the channel API of its window._dsbridge hook (request, serve, ready, and a
// ready hold so _dsb.dsinit waits for the WVJBCallbacks). When the page loads dsbridge.js
// itself (a plain script tag, in any order), both APIs share its one session; otherwise,
// once the document is parsed, this script loads dsbridge.js from its own directory (or the
// URL in its data-dsbridge attribute) with data-channel-only (no DSBridge globals), as
// web/webkit.js does.
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

  var CALL_METHOD = '_wvjb.call'; // page -> native handler
  var HANDLE_METHOD = '_wvjb.handle'; // native -> page handler

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
    return hook && hook.__dsbridged && typeof hook.request === 'function' && typeof hook.holdReady === 'function'
      ? hook
      : null;
  }

  // Hold the page's readiness until the WVJBCallbacks ran: a channel already there takes the
  // hold (and takes back a _dsb.dsinit it has not sent); a later one reads the count.
  if (channel()) channel().holdReady();
  else window._dsbridgeReadyHolds = (window._dsbridgeReadyHolds | 0) + 1;

  /** Gives the hold back; with `ready`, the page is ready too (its setup has run). */
  function releaseHold(ready) {
    var hook = channel();
    if (hook) {
      if (ready) hook.ready();
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
    var withCallback = typeof responseCallback === 'function';
    // With a callback the call carries a stub and the promise resolves with the handler's
    // response (its final cb); without, the ret "" resolves it and the response is dropped.
    bridgeChannel.request(CALL_METHOD, message, { callback: withCallback }).then(
      function (value) {
        if (!withCallback) return;
        try {
          responseCallback(value);
        } catch (e) {
          reportPageError('responseCallback of "' + message.handlerName + '" threw', e);
        }
      },
      function (error) {
        // Like the original, the callback is not called; the failure is logged.
        if (error.kind === 'methodNotFound') warn('no native handler for message from JS:', message.handlerName);
        else warn('callHandler("' + message.handlerName + '") failed (' + error.kind + '): ' + error.message);
      }
    );
  }

  /**
   * An invoke of _wvjb.handle (served through the channel): runs the page's handler; its
   * first response answers (the promise), an error answers with its text.
   */
  function onNativeCall(args) {
    var message = args[0] && typeof args[0] === 'object' ? args[0] : {};
    var name = String(message.handlerName);
    return new Promise(function (resolve, reject) {
      function run() {
        var handler = handlers.get(name);
        if (typeof handler !== 'function') {
          warn('no handler for message from native:', message);
          reject(new Error('no handler ' + name));
          return;
        }
        var responded = false;
        try {
          handler(message.data === undefined ? null : message.data, function (responseData) {
            if (responded) return;
            responded = true;
            resolve(responseData === undefined ? null : responseData);
          });
        } catch (e) {
          if (!responded) {
            responded = true;
            reject(new Error(errorText(e)));
          }
          reportPageError('handler "' + name + '" threw', e);
        }
      }
      // The original dispatches on a new task unless the safety timeout is disabled.
      if (dispatchWithTimeoutSafety) setTimeout(run, 0);
      else run();
    });
  }

  var bridgeChannel = null;

  function install(hook) {
    bridgeChannel = hook;
    hook.serve(HANDLE_METHOD, onNativeCall);
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
      releaseHold(true); // the page is ready: held native calls go out now
    }, 0);
  }

  /** Loads dsbridge.js (channel only) from data-dsbridge or this script's directory. */
  function loadChannel(done) {
    var s = document.createElement('script');
    var base = script && script.src ? script.src : window.location.href;
    try {
      s.src = new URL((script && script.getAttribute('data-dsbridge')) || 'dsbridge.js', base).href;
    } catch (e) {
      done(null);
      return;
    }
    s.setAttribute('data-channel-only', '');
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

// SPDX-License-Identifier: MIT
// The message-handler demo page: a page written for WKWebView script message handlers
// (wadInterface and Turbo-Native-style bridge.sayHello patterns) against dsbridged --demo.
(function () {
  'use strict';
  var T = window.DSTest;
  var handlers = window.webkit.messageHandlers;

  // ---- Functions native code calls (as an app would with evaluateJavaScript) ------------
  var waiting = {}; // callbackId -> {resolve, reject}
  var nextId = 1;
  window.wadInterface = {
    /** The app's answer to a request: fromNative(callbackId, ok, args). */
    fromNative: function (callbackId, ok, args) {
      T.logNative('wadInterface.fromNative(' + [callbackId, ok, args].map(T.show).join(', ') + ')');
      var entry = waiting[callbackId];
      if (!entry) return false;
      delete waiting[callbackId];
      if (ok) entry.resolve(args);
      else entry.reject(args);
      return true;
    },
    /** A request in the wadInterface style: the reply is null, the answer comes later. */
    request: function (action, actionArgs) {
      var callbackId = nextId++;
      return new Promise(function (resolve, reject) {
        waiting[callbackId] = { resolve: resolve, reject: reject };
        handlers.wadInterface.postMessage({ callbackId: callbackId, action: action, actionArgs: actionArgs })
          .catch(reject);
      });
    }
  };
  var hellos = [];
  var helloWaiters = [];
  window.bridge = {
    sayHello: function () {
      hellos.push(Date.now());
      T.logNative('bridge.sayHello()');
      helloWaiters.splice(0).forEach(function (resolve) { resolve('sayHello called'); });
      return 'hello from the page';
    }
  };
  function nextHello() {
    return new Promise(function (resolve) { helloWaiters.push(resolve); });
  }

  document.getElementById('hello').addEventListener('click', function () {
    handlers.nativeApp.postMessage({ name: 'hello' });
  });

  // ---- Rows ---------------------------------------------------------------------------
  function rejection(promise) {
    return promise.then(
      function (v) { return { resolved: v }; },
      function (e) { return { name: e.name, kind: e.kind || null }; });
  }

  T.row('echo.postMessage({msg, n, list, nested}) resolves with the body', function () {
    return handlers.echo.postMessage({ msg: 'hi "there" \\ ☃', n: 1.5, list: [1, null, true], nested: { a: {} } });
  }, { msg: 'hi "there" \\ ☃', n: 1.5, list: [1, null, true], nested: { a: {} } });

  T.row('echo.postMessage(null), ("") and (0)', function () {
    return Promise.all([handlers.echo.postMessage(null), handlers.echo.postMessage(''), handlers.echo.postMessage(0)]);
  }, [null, '', 0]);

  T.row('noSuchHandler.postMessage(1) rejects: methodNotFound', function () {
    return rejection(handlers.noSuchHandler.postMessage(1));
  }, { name: 'Error', kind: 'methodNotFound' });

  T.row('a failing handler rejects: failed (wadInterface without callbackId)', function () {
    return rejection(handlers.wadInterface.postMessage({ action: 'echo' }));
  }, { name: 'Error', kind: 'failed' });

  T.row('bodies that are not JSON are rejected at once', function () {
    var cycle = {};
    cycle.self = cycle;
    var bodies = [undefined, function () {}, NaN, new Date(0), cycle, { deep: [Infinity] }];
    return Promise.all(bodies.map(function (b) { return rejection(handlers.echo.postMessage(b)); }));
  }, [0, 1, 2, 3, 4, 5].map(function () { return { name: 'TypeError', kind: 'badArgument' }; }));

  T.row('nativeApp.postMessage({name: "x"}) resolves {received: body}', function () {
    return handlers.nativeApp.postMessage({ name: 'x', n: 2 });
  }, { received: { name: 'x', n: 2 } });

  T.row('nativeApp "hello": reply, then native calls bridge.sayHello()', function () {
    var called = nextHello();
    return handlers.nativeApp.postMessage({ name: 'hello' }).then(function (reply) {
      return called.then(function (said) { return [reply, said]; });
    });
  }, [{ received: { name: 'hello' } }, 'sayHello called']);

  T.row('wadInterface "echo": reply null, then fromNative(id, true, args)', function () {
    return window.wadInterface.request('echo', { text: 'round trip', list: [1, 2] });
  }, { text: 'round trip', list: [1, 2] });

  T.row('wadInterface unknown action: fromNative(id, false, {error})', function () {
    return window.wadInterface.request('fly', 1).then(
      function (v) { return { resolved: v }; },
      function (e) { return e; });
  }, { error: 'unknown action' });

  T.finish(function () { return webkitBridge.session; }).then(function () {
    document.getElementById('connection').textContent = webkitBridge.session || 'none';
  });
})();

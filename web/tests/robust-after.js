// SPDX-License-Identifier: MIT
// Runs after the dsbridge.js files of robust-frame.html: records connection events and runs
// the load-time steps named in ?run= (before any socket can be up).
(function () {
  'use strict';
  var q = window.__q;
  var steps = (q.get('run') || '').split(',');
  var api = window.dsBridge;
  // Events: ours (dsBridge.on), or the hook's when the original library owns dsBridge.
  var events = api && api.on ? api : window._dsbridge && window._dsbridge.on ? window._dsbridge : null;
  if (events) {
    ['connected', 'disconnected', 'sessionLost', 'callFailed'].forEach(function (name) {
      events.on(name, function (detail) {
        window.__ev.push({ name: name, detail: detail || null, at: performance.now() });
      });
    });
  }

  if (steps.indexOf('wrap') >= 0) {
    // Code that wraps the native entry point, as monitoring or routing code does.
    window.__wrapped = [];
    var inner = window._handleMessageFromNative;
    window._handleMessageFromNative = function (info) {
      window.__wrapped.push(info.method);
      return inner.apply(this, arguments);
    };
  }

  if (steps.indexOf('handlers') >= 0 && api) {
    window.__marks = [];
    api.register('addValue', function (a, b) {
      return a + b;
    });
    api.register('mark', function (label) {
      window.__marks.push(label);
      return label;
    });
    api.register('circular', function () {
      // An unrelated call made in the same turn must not be lost with the bad answer.
      api.call('echo.asyn', 'unrelated', function (v) {
        window.__unrelated = v;
      });
      var o = { name: 'loop' };
      o.self = o;
      return o;
    });
    api.register('bigint', function () {
      return BigInt(10);
    });
    api.registerAsyn('mutating', function (respond) {
      var progress = { n: 0 };
      for (var i = 1; i <= 3; i++) {
        progress.n = i;
        respond(progress, i === 3);
      }
    });
    api.register('boom', function () {
      throw new Error('boom from a sync handler');
    });
    api.registerAsyn('boomAsyn', function () {
      throw new Error('boom from an async handler');
    });
  }

  if (steps.indexOf('early') >= 0 && api) {
    // A call made at load, before the socket is up.
    window.__early = null;
    var settle = function (value) {
      window.__early = value;
    };
    if (api.invoke) {
      api.invoke('echo.asyn', 'early').then(function (v) {
        settle({ value: v });
      }, function (e) {
        settle({ kind: e.kind });
      });
    } else {
      api.call('echo.asyn', 'early', function (v) {
        settle({ value: v });
      });
    }
  }

  if (steps.indexOf('huge') >= 0 && api) {
    // A call above the server's maxMessageBytes made before the socket is up, then a sync
    // call: the queued call goes first, over HTTP, and gets 413.
    window.__huge = null;
    api.invoke('echo.asyn', new Array(70001).join('z')).then(function () {
      window.__huge = 'resolved';
    }, function (e) {
      window.__huge = e.kind;
    });
    window.__hugeSync = api.call('testSyn', 'after huge');
  }

  if (steps.indexOf('order') >= 0 && api) {
    // An async call, then a sync call: the native side must see them in that order. Each
    // makes one native -> page call of `mark`, delivered in the order the calls ran.
    api.call('test.pushInvokes', { method: 'mark', count: 1, args: ['async first'] }, function () {});
    window.__syncAnswer = api.call('test.pushInvokes', { method: 'mark', count: 1, args: ['sync second'] });
  }
})();

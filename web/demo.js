// SPDX-License-Identifier: MIT
// The dsbridged demo page: DSBridge's own demo rows (JS -> native) run against the server's
// --demo interfaces, the promise API, and DSBridge's native -> JS demo handlers.
(function () {
  'use strict';
  var T = window.DSTest;
  var params = new URLSearchParams(window.location.search);
  var TICK = Number(params.get('tick')) || 1000; // startTimer's interval (DSBridge: 1 s)

  // ---- Connection status --------------------------------------------------------------
  var statusLine = document.getElementById('connection');
  // The page's first connection is a first connection even when `resumed` is true: a sync
  // call made before the socket opened created the session, and the socket attached to it
  // (web/dsbridge.d.ts, ConnectedEvent). Only later connections are reconnects.
  var connections = 0;
  dsBridge.on('connected', function (e) {
    connections += 1;
    if (connections === 1) {
      statusLine.textContent = 'connected, session ' + e.session;
    } else {
      statusLine.textContent = 'reconnected, session ' + e.session +
        (e.resumed ? ' (resumed)' : ' (a new session: the previous one had ended)');
    }
  });
  dsBridge.on('disconnected', function (e) {
    statusLine.textContent = 'disconnected (' + e.code + (e.reason ? ' ' + e.reason : '') + ')';
  });
  dsBridge.on('sessionLost', function (e) {
    statusLine.textContent = 'session lost: ' + e.reason;
  });

  // ---- Native -> JS: the handlers of DSBridge's demo pages ------------------------------
  dsBridge.register('addValue', function (r, l) {
    T.logNative('addValue(' + T.show(r) + ', ' + T.show(l) + ') → ' + T.show(r + l));
    return r + l;
  });
  dsBridge.registerAsyn('append', function (a1, a2, a3, responseCallback) {
    var s = a1 + ' ' + a2 + ' ' + a3;
    T.logNative('append(' + [a1, a2, a3].map(T.show).join(', ') + ') → ' + T.show(s));
    responseCallback(s);
  });
  dsBridge.registerAsyn('startTimer', function (responseCallback) {
    var t = 0;
    T.logNative('startTimer() started');
    var timer = setInterval(function () {
      if (t === 5) {
        responseCallback(t);
        clearInterval(timer);
        T.logNative('startTimer → 5 (complete)');
      } else {
        T.logNative('startTimer progress ' + t);
        responseCallback(t++, false);
      }
    }, TICK);
  });
  dsBridge.register('syn', {
    tag: 'syn',
    addValue: function (r, l) {
      T.logNative('syn.addValue(' + T.show(r) + ', ' + T.show(l) + ') → ' + T.show(r + l));
      return r + l;
    },
    getInfo: function () {
      T.logNative('syn.getInfo()');
      return { tag: this.tag, value: 8 };
    }
  });
  dsBridge.registerAsyn('asyn', {
    tag: 'asyn',
    addValue: function (r, l, responseCallback) {
      T.logNative('asyn.addValue(' + T.show(r) + ', ' + T.show(l) + ') → ' + T.show(r + l));
      responseCallback(r + l);
    },
    getInfo: function (responseCallback) {
      T.logNative('asyn.getInfo()');
      responseCallback({ tag: this.tag, value: 8 });
    }
  });

  // test.nativeDemo asks dsbridged --demo to call the handlers above (DSBridge's native -> JS
  // demo) and to report each outcome here: 11 calls, addValue and append at once (held until
  // the page is ready), the rest once it is. The daemon never calls a page unasked.
  dsBridge.register('demoReport', T.demoReportHandler(11));
  dsBridge.call('test.nativeDemo');

  document.getElementById('push').addEventListener('click', function () {
    // test.pushInvokes makes the server call JS methods of this page (results go to /metrics).
    dsBridge.call('test.pushInvokes', { method: 'addValue', count: 1, args: [3, 4] });
    dsBridge.call('test.pushInvokes', { method: 'append', count: 1, args: ['I', 'love', 'you'] });
    dsBridge.call('test.pushInvokes', { method: 'asyn.getInfo', count: 1, args: [] });
    dsBridge.call('test.pushInvokes', { method: 'startTimer', count: 1, args: [] });
  });
  document.getElementById('rerun').addEventListener('click', function () {
    window.location.reload();
  });

  // ---- JS -> native: DSBridge's demo rows -------------------------------------------
  function viaCallback(method, args) {
    return new Promise(function (resolve) {
      if (args === undefined) dsBridge.call(method, resolve);
      else dsBridge.call(method, args, resolve);
    });
  }

  // DSBridge's demo rows: web/demo-rows.json (toNative), the copy the Swift and Python tests
  // read too. A row without `arg` is called without an argument; async rows with a callback.
  function demoRow(r) {
    var hasArg = Object.prototype.hasOwnProperty.call(r, 'arg');
    var shown = hasArg ? JSON.stringify(r.arg) : '';
    var name = r.method + '(' + shown + (r.async ? (hasArg ? ', cb' : 'cb') : '') + ')' + (r.async ? '' : ' — sync return');
    T.row(name, function () {
      if (r.async) return viaCallback(r.method, hasArg ? r.arg : undefined);
      return hasArg ? dsBridge.call(r.method, r.arg) : dsBridge.call(r.method);
    }, r.result);
  }

  fetch('/demo-rows.json').then(function (response) {
    if (!response.ok) throw new Error('HTTP ' + response.status);
    return response.json();
  }).then(function (rows) {
    rows.toNative.forEach(demoRow);
  }, function (e) {
    T.check('load /demo-rows.json', 'failed: ' + (e && e.message), 'the demo rows');
  }).then(moreRows);

  function moreRows() {
    // The rows below depend on more than a method, an argument and an answer.
    T.row('call() with a callback returns ""', function () {
      return dsBridge.call('testAsyn', 'x', function () {});
    }, '');

    T.row('callProgress(cb): 10 … 0, 11 deliveries', function () {
      return new Promise(function (resolve) {
        var seen = [];
        dsBridge.call('callProgress', function (value) {
          seen.push(value);
          if (value === 0) setTimeout(function () { resolve(seen); }, 100); // nothing may follow
        });
      });
    }, [10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0], 20000);

    T.row("hasNativeMethod('testSyn')", function () {
      return dsBridge.hasNativeMethod('testSyn');
    }, true);

    T.row("hasNativeMethod('xx')", function () {
      return dsBridge.hasNativeMethod('xx');
    }, false);

    T.row("hasNativeMethod('testAsyn', 'asyn') / ('testAsyn', 'syn')", function () {
      return [dsBridge.hasNativeMethod('testAsyn', 'asyn'), dsBridge.hasNativeMethod('testAsyn', 'syn')];
    }, [true, false]);

    T.row('testNever({msg}) — not implemented', function () {
      return dsBridge.call('testNever', { msg: 'testSyn' });
    }, '');

    T.row('2000 × testAsyn("js+i", cb), answered in order', function () {
      return new Promise(function (resolve) {
        var n = 2000;
        var received = 0;
        var inOrder = true;
        var last = null;
        for (var i = 0; i < n; i++) {
          (function (i) {
            dsBridge.call('testAsyn', 'js+' + i, function (v) {
              if (v !== 'js+' + received + ' [ asyn call]') inOrder = false;
              received++;
              last = v;
              if (received === n) resolve({ answered: received, inOrder: inOrder, last: last });
            });
          })(i);
        }
      });
    }, { answered: 2000, inOrder: true, last: 'js+1999 [ asyn call]' }, 60000);

    // ---- Values that must survive the envelope ----------------------------------------
    T.row('echo.syn(0), (false), (null), ("")', function () {
      return [dsBridge.call('echo.syn', 0), dsBridge.call('echo.syn', false), dsBridge.call('echo.syn', null), dsBridge.call('echo.syn', '')];
    }, [0, false, null, '']);

    var tricky = { s: 'quote " apostrophe \' backslash \\ newline \n ü 😀 </script>', n: [1, 2.5, -3, 1e21], z: null, t: true };
    T.row('echo.asyn with quotes, unicode and nesting', function () {
      return viaCallback('echo.asyn', tricky);
    }, tricky);

    // ---- Promise API (dsBridge.invoke) -----------------------------------------------
    T.row("invoke('testAsyn', 'p')", function () {
      return dsBridge.invoke('testAsyn', 'p');
    }, 'p [ asyn call]');

    T.row("invoke('testSyn', 'q') — sync method, value as the completion", function () {
      return dsBridge.invoke('testSyn', 'q');
    }, 'q[ syn call]');

    T.row("invoke('callProgress', {onProgress})", function () {
      var progress = [];
      return dsBridge.invoke('callProgress', undefined, {
        onProgress: function (v) { progress.push(v); }
      }).then(function (final) {
        return { progress: progress, final: final };
      });
    }, { progress: [10, 9, 8, 7, 6, 5, 4, 3, 2, 1], final: 0 }, 20000);

    T.row("invoke('no.suchMethod') rejects", function () {
      return dsBridge.invoke('no.suchMethod', 1);
    }, { rejects: 'methodNotFound' });

    T.row("invoke('swift.testSyn', 42) — wrong argument type", function () {
      return dsBridge.invoke('swift.testSyn', 42);
    }, { rejects: 'badArgument' });

    T.row('invoke(callProgress) aborted after 2 values', function () {
      var controller = new AbortController();
      var progress = [];
      var p = dsBridge.invoke('callProgress', null, {
        signal: controller.signal,
        onProgress: function (v) {
          progress.push(v);
          if (progress.length === 2) controller.abort();
        }
      });
      return p.then(function (v) {
        return { resolved: v };
      }, function (e) {
        // Wait a few ticks: nothing more may arrive after the abort.
        return new Promise(function (resolve) {
          setTimeout(function () {
            resolve({ kind: e.kind, name: e.name, progress: progress });
          }, 300);
        });
      });
    }, { kind: 'cancelled', name: 'AbortError', progress: [10, 9] }, 20000);

    T.finish(function () { return dsBridge.session; });
  }
})();

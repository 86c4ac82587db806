// SPDX-License-Identifier: MIT
// Page functions for scripts/webkit_browser_test.py: what native code calls by path
// (_page.callFunction), and records of those calls.
(function () {
  'use strict';
  window.__calls = [];
  window.bridge = {
    sayHello: function () {
      window.__calls.push('sayHello');
      return 'hello from the page';
    }
  };
  window.wadInterface = {
    fromNative: function (callbackId, ok, args) {
      window.__calls.push({ callbackId: callbackId, ok: ok, args: args });
      return true;
    }
  };
  window.app = {
    add: function (a, b) {
      return a + b;
    },
    self: function () {
      return this === window.app;
    },
    later: function (value, ms) {
      return new Promise(function (resolve) {
        setTimeout(function () { resolve({ later: value }); }, ms || 10);
      });
    },
    fails: function () {
      throw new Error('app.fails threw');
    },
    rejects: function () {
      return Promise.reject(new Error('app.rejects rejected'));
    },
    nothing: 5,
    nested: { deeper: { fn: function (x) { return [x]; } } }
  };
  window.__sayHelloFromProto = Object.create({ inherited: function () { return 'no'; } });
})();

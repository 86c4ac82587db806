// SPDX-License-Identifier: MIT
// Sets up a page for scripts/browser_robustness.py from its query string, then writes the
// script tags in the order asked (parser-inserted, as a page's own tags would be):
//   order=ours | original,ours | ours,original | ''   which dsbridge.js files, in order
//   server=URL, auth=SECRET                            window.DSBRIDGE_SERVER / _AUTH
//   env=android | ios                                  what a DSBridge WebView injects first
//   run=handlers,early,order,huge,wrap                 load-time steps of robust-after.js
// Records what happens in window.__ev (events), __errors (window.onerror), __wsOpened
// (times WebSockets were created), __appCalls (calls that reached the "app" bridge).
(function () {
  'use strict';
  var q = new URLSearchParams(location.search);
  window.__q = q;
  window.__ev = [];
  window.__errors = [];
  window.__wsOpened = [];
  window.__appCalls = [];
  window.addEventListener('error', function (e) {
    window.__errors.push(String((e.error && e.error.message) || e.message));
  });
  if (q.get('server')) window.DSBRIDGE_SERVER = q.get('server');
  if (q.get('auth')) window.DSBRIDGE_AUTH = q.get('auth');

  // Counts socket openings (reconnect timing); the socket itself is the browser's own.
  var NativeWebSocket = window.WebSocket;
  window.WebSocket = function (url, protocols) {
    window.__wsOpened.push(performance.now());
    return new NativeWebSocket(url, protocols);
  };
  window.WebSocket.prototype = NativeWebSocket.prototype;

  // What the apps inject before any page script (dsbridge-reference.md 1.2).
  if (q.get('env') === 'android') {
    window._dsbridge = {
      call: function (method, argJSON) {
        window.__appCalls.push([method, argJSON]);
        return JSON.stringify({ code: 0, data: 'android:' + method });
      }
    };
  } else if (q.get('env') === 'ios') {
    window._dswk = true;
    window.prompt = function (text, defaultText) {
      window.__appCalls.push([text, defaultText]);
      return JSON.stringify({ code: 0, data: 'ios:' + text });
    };
  }

  var sources = { ours: '/dsbridge.js', original: 'vendor/dsbridge-3.1.4.js' };
  (q.get('order') === null ? 'ours' : q.get('order')).split(',').forEach(function (name) {
    if (sources[name]) document.write('<script src="' + sources[name] + '"><\/script>');
  });
  document.write('<script src="robust-after.js"><\/script>');
})();

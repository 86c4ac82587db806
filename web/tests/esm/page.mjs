// SPDX-License-Identifier: MIT
// The page side of scripts/esm_browser_test.py. Each page of this folder imports the client by
// its package name (`import * as client from 'dsbridged-client'`; its import map resolves the
// name to the daemon's /dsbridge.mjs) and hands it to run(), which makes calls through it (and
// through the original npm "dsbridge" 3.1.4 when the page has it), registers the methods the
// test calls from native through the admin API, and leaves what it saw in window.esm
// (done: true at the end; error: the text of what threw, if anything did).

/** Evaluates the original's dist file as a bundler includes it: (function (module, exports) {…}), `this` = exports. */
export function evaluateBundled(text) {
  const module = { exports: {} };
  new Function('module', 'exports', text + '\n//# sourceURL=dsbridge-3.1.4-bundled.js').call(module.exports, module, module.exports);
  return module.exports;
}

/**
 * `order`: what else the page loaded: "alone", "script-first" (a plain <script src="/dsbridge.js">
 * before), "original-first" (the original's script before), "module-first" (the original
 * evaluated right after the client, as in a bundle that imports the client first).
 * `original`: the original library's export (module.exports), or null.
 */
export function run(client, order, original) {
  const esm = (window.esm = { order, done: false, error: null, events: [], results: {} });
  client.on('connected', (e) => esm.events.push(['connected', e]));
  client.on('sessionLost', (e) => esm.events.push(['sessionLost', e]));
  client.on('callFailed', (e) => esm.events.push(['callFailed', e]));
  calls(client, order, original, esm.results).then(
    () => (esm.done = true),
    (e) => {
      esm.error = String((e && e.stack) || e);
      esm.done = true;
    }
  );
}

async function calls(client, order, original, r) {
  const { dsBridge, call, invoke, register, registerAsyn, hasNativeMethod } = client;
  if (original && typeof original.call !== 'function') throw new Error('the original library is not loaded');
  r.exports = ['call', 'register', 'registerAsyn', 'hasNativeMethod', 'invoke', 'on', 'off', 'reconnect', 'close', 'configure']
    .filter((name) => typeof client[name] !== 'function');
  r.defaultIsDsBridge = client.default === dsBridge;
  r.owner = window.dsBridge === dsBridge ? 'module' : original && window.dsBridge === original ? 'original' : 'other';
  r.scriptSession = dsBridge.session; // the classic script's session, when it came first and is up already
  // When the script came first its socket may still be saying hello: the sync call below
  // then makes the page's session over HTTP, and the session the hello asked for is ended
  // (_dsb.closePage) once its welcome comes; the test sees one session per page either way.

  // Page -> native through the module (the interfaces of dsbridged --demo).
  r.syn = dsBridge.call('testSyn', 'Hello');
  r.echoSyn = call('echo.syn', { msg: 'hi', tag: 1 });
  r.hasAsyn = hasNativeMethod('testAsyn', 'asyn');
  r.hasMissing = hasNativeMethod('noSuchMethod');
  r.asyn = await new Promise((resolve) => dsBridge.call('testAsyn', 'hi', resolve));
  const progress = [];
  r.progress = { final: await invoke('callProgress', null, { onProgress: (v) => progress.push(v) }), values: progress };
  r.swift = await invoke('swift.testAsyn', 'x');
  r.notFound = await invoke('noSuchMethod', 1).then(() => 'resolved', (e) => e.kind);

  // JavaScript methods that native calls (the test, through the admin API).
  register('addValue', (a, b) => a + b);
  registerAsyn('append', (a, b, c, respond) => respond(a + ' ' + b + ' ' + c));
  register('esm', { echo: (x) => x });
  registerAsyn('countdown', (n, respond) => {
    for (let i = n; i > 0; i--) respond(i, false);
    respond(0);
  });

  if (original) {
    r.originalSyn = original.call('testSyn', 'orig');
    r.originalAsyn = await new Promise((resolve) => original.call('testAsyn', 'orig', resolve));
    r.originalHas = original.hasNativeMethod('echo.asyn', 'asyn');
    original.register('originalEcho', (x) => ({ from: 'original', x }));
  }
  r.session = dsBridge.session;
  r.sameSession = !!dsBridge.session && window._dsbridge.session === dsBridge.session;
}

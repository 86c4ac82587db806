// SPDX-License-Identifier: MIT
// dsbridge.mjs inside a real DSBridge WebView (in-app-webview.mjs), after the original npm
// "dsbridge" 3.1.4 installed the globals: the module steps aside (no socket) and its exports
// are the 3.1.4 API over the app's bridge, window.dsBridge staying the original's.
import { page } from './fake-browser.mjs';
import { app } from './in-app-webview.mjs';
import original from './original-npm.mjs';
import { dsBridge, invoke, register, configure, on } from '../../dsbridge.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';

configure({ server: 'https://ignored.test' }); // no server inside the app: does nothing
on('connected', () => {}); // a no-op inside the app

test('inside the app the module uses the app\'s bridge, next to the original library', async () => {
  assert.equal(window.dsBridge, original);
  assert.notEqual(dsBridge, original);
  assert.equal(dsBridge.call('testSyn', 'Hello'), 'Hello[ syn call]');
  assert.deepEqual(app.calls.at(-1), ['testSyn', { data: 'Hello' }]);
  const answer = invoke('testAsyn', 'hi');
  const [method, arg] = app.calls.at(-1);
  assert.equal(method, 'testAsyn');
  app.complete(arg._dscbstub, 'hi [ asyn call]');
  assert.equal(await answer, 'hi [ asyn call]');
  register('addValue', (a, b) => a + b);
  window._handleMessageFromNative({ method: 'addValue', callbackId: 3, data: '[3, 4]' });
  assert.deepEqual(app.calls.at(-1), ['_dsb.returnValue', { data: { id: 3, complete: true, data: 7 } }]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(page.sockets.length, 0, 'no socket inside the app');
  assert.equal(page.requests.length, 0, 'nothing goes to a server');
});

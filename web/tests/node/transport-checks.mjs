// SPDX-License-Identifier: MIT
// The checks of original-first.test.mjs and module-first.test.mjs: the original npm
// "dsbridge" 3.1.4 and dsbridge.mjs on one page, both working over the one dsbridged session
// (the original through window._dsbridge). Each file imports the two in its order first.
import { page, FakeSession, demoServer, flush } from './fake-browser.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';

export const SERVER = 'http://page.test';

/** Registers the tests; `original` is the npm module's export, `client` dsbridge.mjs's namespace. */
export function transportTests(original, client, { originalFirst }) {
  const { dsBridge, invoke, register } = client;
  page.answer = demoServer(SERVER);
  let server;

  test('who owns the DSBridge globals', () => {
    assert.equal(typeof original.call, 'function');
    assert.equal(original.invoke, undefined, 'the original object has no invoke');
    if (originalFirst) {
      assert.equal(window.dsBridge, original, 'the original came first: window.dsBridge is its object');
      assert.notEqual(dsBridge, original, 'the module has its own object');
    } else {
      assert.equal(window.dsBridge, dsBridge, 'the module came first: window.dsBridge is its object');
    }
    assert.equal(typeof dsBridge.invoke, 'function');
    assert.equal(window._dsbridge.__dsbridged, true, 'the hook the original calls is dsbridged\'s');
  });

  test('one socket; hello carries the configured auth; welcome; one _dsb.dsinit', async () => {
    await flush();
    assert.equal(page.sockets.length, 1);
    const ws = page.sockets[0];
    assert.equal(ws.url, 'ws://page.test/dsbridge', 'the page\'s origin: nothing configured a server');
    ws.open();
    assert.deepEqual(JSON.parse(ws.sent[0]), { t: 'hello', v: 1, auth: 'secret' });
    server = new FakeSession(ws);
    server.newMessages();
    server.welcome();
    assert.equal(window._dsbridge.session, 's1');
    assert.equal(dsBridge.session, 's1');
    await flush();
    const dsinits = server.calls('_dsb.dsinit');
    assert.equal(dsinits.length, 1);
    server.send(server.ret(dsinits[0]));
  });

  test('the original library: a call with a callback goes on the socket', async () => {
    let value;
    original.call('testAsyn', 'hello', (v) => (value = v));
    await flush();
    const [call] = server.calls('testAsyn');
    assert.match(call.arg._dscbstub, /^dscb\d+$/);
    server.send(server.ret(call), server.cb(call, 'hello [ asyn call]'));
    assert.equal(value, 'hello [ asyn call]');
  });

  test('the original library: a sync call goes over HTTP', () => {
    page.requests.length = 0;
    assert.equal(original.call('testSyn', 'Hello'), 'Hello[ syn call]');
    assert.equal(original.hasNativeMethod('testAsyn'), true);
    assert.equal(page.requests[0].headers['x-dsbridge-token'], 'tok1');
  });

  test('the module: invoke and dsBridge.call on the same session', async () => {
    const answer = invoke('echo.asyn', { tag: 2 });
    let value;
    dsBridge.call('testAsyn', 'x', (v) => (value = v));
    await flush();
    const calls = server.calls();
    assert.deepEqual(calls.map((c) => c.method), ['echo.asyn', 'testAsyn']);
    server.send(server.ret(calls[0]), server.cb(calls[0], { tag: 2 }), server.ret(calls[1]), server.cb(calls[1], 'x!'));
    assert.deepEqual(await answer, { tag: 2 });
    assert.equal(value, 'x!');
    assert.equal(dsBridge.call('testSyn', 'sync'), 'sync[ syn call]');
  });

  test('native calls reach handlers registered through either API', async () => {
    original.register('addValue', (a, b) => a + b);
    original.registerAsyn('append', (a, b, respond) => respond(a + ' ' + b));
    register('moduleAdd', (a, b) => a + b);
    client.registerAsyn('moduleLater', (respond) => respond('later'));
    server.send(
      server.invoke(1, 'addValue', [3, 4]),
      server.invoke(2, 'append', ['I', 'you']),
      server.invoke(3, 'moduleAdd', [5, 6]),
      server.invoke(4, 'moduleLater', []),
      server.invoke(5, '_hasJavascriptMethod', ['moduleAdd', 'all'])
    );
    await flush();
    const answers = server.calls('_dsb.returnValue').map((c) => c.arg.data);
    assert.deepEqual(answers, [
      { id: 1, complete: true, data: 7 },
      { id: 2, complete: true, data: 'I you' },
      { id: 3, complete: true, data: 11 },
      { id: 4, complete: true, data: 'later' },
      { id: 5, complete: true, data: true }
    ]);
  });

  test('window.close() ends the session for both', () => {
    page.requests.length = 0;
    window.close();
    assert.deepEqual(JSON.parse(page.requests[0].body).method, '_dsb.closePage');
    assert.equal(page.sockets[0].closedBy.code, 1000);
    assert.equal(page.sockets.length, 1);
  });
}

// SPDX-License-Identifier: MIT
// dsbridge.mjs alone in node's test runner, over fake-browser.mjs: what it sends and how it
// handles what the server sends (PROTOCOL.md 2-5), and that one page has one client.
//   node --test web/tests/node/
import { page, FakeSession, demoServer, flush, sleep } from './fake-browser.mjs';
import * as client from '../../dsbridge.mjs';
import { dsBridge, invoke, on, configure, register, registerAsyn, close } from '../../dsbridge.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const SERVER = 'https://bridge.test:8443';
page.answer = demoServer(SERVER);

// At the top level of the importing module: before the module's socket opens.
configure({ server: SERVER + '/ignored/path' });
const events = [];
on('connected', (e) => events.push(['connected', e]));
on('disconnected', (e) => events.push(['disconnected', e]));

let ws;
let server;

test('the module exports the DSBridge API and installs the globals and the hook', () => {
  for (const name of ['call', 'register', 'registerAsyn', 'hasNativeMethod', 'invoke', 'on', 'off', 'reconnect', 'close', 'configure']) {
    assert.equal(typeof client[name], 'function', name);
  }
  assert.equal(client.default, dsBridge);
  assert.equal(window.dsBridge, dsBridge, 'alone, window.dsBridge is the module\'s');
  assert.equal(typeof dsBridge.invoke, 'function');
  assert.equal(window._dsbridge.__dsbridged, true, 'window._dsbridge is dsbridged\'s hook');
  assert.equal(typeof window._dsbridge.call, 'function', 'the hook the original library calls');
  assert.equal(typeof window._handleMessageFromNative, 'function');
});

test('one socket to the configured server; hello first', async () => {
  await flush();
  assert.equal(page.sockets.length, 1);
  ws = page.sockets[0];
  assert.equal(ws.url, 'wss://bridge.test:8443/dsbridge');
  assert.equal(ws.protocol, 'dsbridge.v1');
  ws.open();
  assert.deepEqual(JSON.parse(ws.sent[0]), { t: 'hello', v: 1 });
});

test('the welcome: connected event, session id, _dsb.dsinit sent', async () => {
  server = new FakeSession(ws);
  server.newMessages(); // the hello
  server.welcome();
  assert.deepEqual(events, [['connected', { session: 's1', resumed: false }]]);
  assert.equal(dsBridge.session, 's1');
  await flush();
  const [dsinit] = server.calls();
  assert.deepEqual(dsinit, { t: 'call', id: 1, method: '_dsb.dsinit', arg: { data: null } });
  server.send(server.ret(dsinit));
});

test('invoke resolves from ret + cb', async () => {
  const value = { msg: ' I am echoAsyn call', tag: 2 };
  const answer = invoke('echo.asyn', value);
  await flush();
  const [call] = server.calls();
  assert.equal(call.method, 'echo.asyn');
  assert.deepEqual(call.arg.data, value);
  assert.match(call.arg._dscbstub, /^dscb\d+$/);
  server.send(server.ret(call), server.cb(call, value));
  assert.deepEqual(await answer, value);
});

test('invoke reports progress values, then resolves with the final one', async () => {
  const progress = [];
  const answer = invoke('callProgress', null, { onProgress: (v) => progress.push(v) });
  await flush();
  const [call] = server.calls('callProgress');
  server.send(server.ret(call));
  for (const v of [2, 1]) server.send(server.cb(call, v, false));
  server.send(server.cb(call, 0, true));
  assert.equal(await answer, 0);
  assert.deepEqual(progress, [2, 1]);
});

test('invoke with a traceparent sends it with the call (PROTOCOL.md 2.2); without one the frame has none', async () => {
  const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const traced = invoke('echo.traced', 1, { traceparent });
  const plain = invoke('echo.plain', 2);
  await flush();
  const sent = server.calls();
  const call = sent.find((c) => c.method === 'echo.traced');
  const other = sent.find((c) => c.method === 'echo.plain');
  assert.equal(call.traceparent, traceparent);
  assert.equal('traceparent' in other, false);
  server.send(server.ret(call), server.cb(call, 1), server.ret(other), server.cb(other, 2));
  assert.equal(await traced, 1);
  assert.equal(await plain, 2);
});

test('invoke rejects with the kind of an error ret', async () => {
  const answer = invoke('nope', 1);
  await flush();
  const [call] = server.calls('nope');
  server.send({ ...server.ret(call, '', -1), error: { kind: 'methodNotFound', message: 'no method nope' } });
  await assert.rejects(answer, (e) => e.kind === 'methodNotFound');
});

test('dsBridge.call with a callback: window.dscbN gets each value and is deleted after the last', async () => {
  const values = [];
  const ret = dsBridge.call('testAsyn', 'hello', (v) => values.push(v));
  assert.equal(ret, '');
  await flush();
  const [call] = server.calls('testAsyn');
  const stub = call.arg._dscbstub;
  assert.equal(typeof window[stub], 'function');
  server.send(server.ret(call), server.cb(call, 'progress', false), server.cb(call, 'hello [ asyn call]'));
  assert.deepEqual(values, ['progress', 'hello [ asyn call]']);
  assert.equal(stub in window, false);
});

test('an ack due rides in front of the next call, in the same frame (PROTOCOL.md 2.1, 2.2)', async () => {
  const first = invoke('echo.first', 1);
  await flush();
  const [call] = server.calls('echo.first');
  server.send(server.ret(call), server.cb(call, 1));
  assert.equal(await first, 1);
  const before = ws.sent.length;
  const second = invoke('echo.second', 2);
  await flush();
  const frames = ws.sent.slice(before).map((f) => JSON.parse(f));
  assert.equal(frames.length, 1, 'one frame: ' + JSON.stringify(frames));
  assert.deepEqual(frames[0][0], { t: 'ack', seq: server.seq });
  assert.equal(frames[0][1].method, 'echo.second');
  const [next] = server.calls('echo.second');
  server.send(server.ret(next), server.cb(next, 2));
  assert.equal(await second, 2);
  await sleep(400);
  assert.deepEqual(server.newMessages().filter((m) => m.t === 'ack'), [], 'no ack alone before the ack delay (1 s)');
});

test('acks: the highest seq processed, alone after the ack delay (1 s) when nothing else goes out', async () => {
  server.newMessages();
  await sleep(700);
  const acks = server.newMessages().filter((m) => m.t === 'ack');
  assert.deepEqual(acks, [{ t: 'ack', seq: server.seq }]);
});

test('a native invoke reaches registered functions and is answered with _dsb.returnValue', async () => {
  register('addValue', (a, b) => a + b);
  registerAsyn('append', (a, b, c, respond) => respond(a + ' ' + b + ' ' + c));
  register('syn', { tag: 'syn', getInfo() { return { tag: this.tag, value: 8 }; } });
  registerAsyn('startTimer', (respond) => {
    respond(0, false);
    respond(1);
  });
  server.send(
    server.invoke(11, 'addValue', [3, 4]),
    server.invoke(12, 'append', ['I', 'love', 'you']),
    server.invoke(13, 'syn.getInfo', []),
    server.invoke(14, 'startTimer', []),
    server.invoke(15, 'notRegistered', []),
    server.invoke(16, '_hasJavascriptMethod', ['syn.getInfo', 'all'])
  );
  await flush();
  const answers = server.calls('_dsb.returnValue').map((c) => c.arg.data);
  assert.deepEqual(answers, [
    { id: 11, data: 7, complete: true },
    { id: 12, data: 'I love you', complete: true },
    { id: 13, data: { tag: 'syn', value: 8 }, complete: true },
    { id: 14, data: 0, complete: false },
    { id: 14, data: 1, complete: true },
    { id: 15, complete: true, error: 'method "notRegistered" is not registered' },
    { id: 16, data: true, complete: true }
  ]);
});

test('a sync call goes over POST /dsbridge/call with the session token', () => {
  page.requests.length = 0;
  assert.equal(dsBridge.call('testSyn', 'Hello'), 'Hello[ syn call]');
  assert.equal(dsBridge.hasNativeMethod('echo.asyn', 'asyn'), true);
  const [request] = page.requests;
  assert.equal(request.url, SERVER + '/dsbridge/call');
  assert.equal(request.headers['x-dsbridge-token'], 'tok1');
  assert.match(request.headers['x-dsbridge-after'], /^\d+$/);
  assert.deepEqual(JSON.parse(request.body), { method: 'testSyn', arg: { data: 'Hello' } });
});

test('configure after the start: the same server is accepted, another one throws', () => {
  configure({ server: 'wss://bridge.test:8443' });
  assert.throws(() => configure({ server: 'https://other.test' }), /already uses the server https:\/\/bridge\.test:8443/);
  assert.throws(() => configure({ server: 'ftp://bridge.test' }), TypeError);
});

test('importing the module again, or running dsbridge.js as a script, gives the same client', async () => {
  const again = await import('../../dsbridge.mjs?again');
  assert.equal(again.dsBridge, dsBridge);
  assert.equal(again.invoke, invoke);
  // dsbridge.js as a classic script (a <script src> after the module) finds the session.
  const path = fileURLToPath(new URL('../../dsbridge.js', import.meta.url));
  vm.runInThisContext(readFileSync(path, 'utf8'), { filename: path });
  // ... and so does a second evaluation as a module (another copy of the package).
  window[Symbol.for('dsbridged.module')] = 'http://elsewhere.test/dsbridge-module.mjs';
  vm.runInThisContext(readFileSync(path, 'utf8'), { filename: path });
  assert.equal(Object.prototype.hasOwnProperty.call(window, Symbol.for('dsbridged.module')), false, 'the mark is taken');
  assert.equal(window.dsBridge, dsBridge);
  assert.equal(window[Symbol.for('dsbridged.client')]().dsBridge, dsBridge);
  await flush();
  assert.equal(page.sockets.length, 1, 'one socket');
});

test('close(): _dsb.closePage, disconnected without reconnecting, later calls fail with kind closed', async () => {
  events.length = 0;
  page.requests.length = 0;
  close();
  assert.deepEqual(JSON.parse(page.requests[0].body), { method: '_dsb.closePage', arg: { data: null } });
  assert.deepEqual(events, [['disconnected', { code: 1000, reason: 'closed by the page', reconnecting: false }]]);
  assert.equal(ws.closedBy.code, 1000);
  await assert.rejects(invoke('testAsyn', 'x'), (e) => e.kind === 'closed');
  assert.equal(page.sockets.length, 1);
  assert.deepEqual(page.console.filter(([level]) => level === 'error'), []);
});

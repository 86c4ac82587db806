// SPDX-License-Identifier: MIT
// A sync call made while the socket's hello is out but its welcome not yet in: the page makes
// its session over HTTP, moves to a new socket attached to it, and ends the session the first
// hello made (`_dsb.closePage` once its welcome comes) instead of leaving it to expire.
//   node --test web/tests/node/
import { page, FakeSession, demoServer, flush } from './fake-browser.mjs';
import { dsBridge, configure } from '../../dsbridge.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';

const SERVER = 'https://bridge.test:8443';
page.answer = demoServer(SERVER);
configure({ server: SERVER });

test('a sync call before the welcome: one session is kept, the other one is ended', async () => {
  await flush();
  const first = page.sockets[0];
  first.open();
  assert.deepEqual(JSON.parse(first.sent[0]), { t: 'hello', v: 1 });

  assert.equal(dsBridge.call('testSyn', 'x'), 'x[ syn call]');
  // The session over HTTP, then the calls queued before (the page's _dsb.dsinit), then this one.
  assert.equal(page.requests[0].url, SERVER + '/dsbridge/session');
  assert.deepEqual(page.requests.slice(1).map((r) => JSON.parse(r.body).method), ['_dsb.dsinit', 'testSyn']);
  assert.equal(dsBridge.session, 's-http');
  await flush();
  assert.equal(page.sockets.length, 2, 'a new socket for the session made over HTTP');
  const second = page.sockets[1];
  second.open();
  assert.deepEqual(JSON.parse(second.sent[0]), { t: 'hello', v: 1, token: 't-http', ack: 0 });

  // The first hello's welcome arrives late: that session is ended, the page's is untouched.
  new FakeSession(first, 's-orphan', 'tok-orphan').welcome();
  assert.deepEqual(first.messages().slice(1), [{ t: 'call', id: 1, method: '_dsb.closePage' }]);
  assert.equal(dsBridge.session, 's-http');
  new FakeSession(second, 's-http', 't-http').welcome();
  assert.equal(dsBridge.session, 's-http');
  // Nothing of the page's goes out on the retired socket.
  dsBridge.call('testAsyn', 'y', () => {});
  await flush();
  assert.equal(first.messages().length, 2);
  assert.ok(second.messages().some((m) => m.t === 'call' && m.method === 'testAsyn'));
});

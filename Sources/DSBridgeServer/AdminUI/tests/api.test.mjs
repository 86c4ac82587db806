// SPDX-License-Identifier: MIT
// The admin page's API client (Sources/DSBridgeServer/AdminUI/api.js) under node's test runner, with `fetch`
// replaced by a recorder (the browser test, scripts/admin_ui_browser_test.py, runs it against
// a real daemon):   node --test Sources/DSBridgeServer/AdminUI/tests/*.test.mjs
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { AdminClient, health, parseArgs, paths } from '../api.js';

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

/** Replaces fetch: records each request, answers with `answer(url, init)`. */
function recordFetch(answer) {
  const requests = [];
  globalThis.fetch = async (url, init) => {
    requests.push({ url, init });
    return answer(url, init);
  };
  return requests;
}

test('requests carry the token in the Authorization header only, never in the URL', async () => {
  const requests = recordFetch(() => new Response('[]', { headers: { 'Content-Type': 'application/json' } }));
  const client = new AdminClient('s3cret');
  const answer = await client.sessions();
  assert.deepEqual(answer, { status: 200, body: [] });
  assert.equal(requests[0].url, '../sessions');
  assert.equal(requests[0].init.method, 'GET');
  assert.equal(requests[0].init.headers.Authorization, 'Bearer s3cret');
  assert.equal(requests[0].init.cache, 'no-store');
  assert.ok(!requests[0].url.includes('s3cret'));
  assert.equal(JSON.stringify(client).includes('s3cret'), false); // a private field
});

test('a call posts {method, args, timeoutMs} as JSON to the session, its id encoded', async () => {
  const requests = recordFetch(() => new Response('{"data":7}', { headers: { 'Content-Type': 'application/json' } }));
  const answer = await new AdminClient('t').call('a/b?c', 'addValue', [3, 4], 5000);
  assert.deepEqual(answer, { status: 200, body: { data: 7 } });
  assert.equal(requests[0].url, '../sessions/a%2Fb%3Fc/call');
  assert.equal(requests[0].init.method, 'POST');
  assert.equal(requests[0].init.headers['Content-Type'], 'application/json');
  assert.deepEqual(JSON.parse(requests[0].init.body), { method: 'addValue', args: [3, 4], timeoutMs: 5000 });
});

test('group calls, recent calls and metrics go to their paths', async () => {
  const requests = recordFetch(() => new Response('x 1\n', { headers: { 'Content-Type': 'text/plain' } }));
  const client = new AdminClient('t');
  await client.callGroup('room:7', 'm', [], 100);
  await client.recentCalls('abc');
  const metrics = await client.metrics();
  await client.nodes();
  await client.nodeMetrics('web-1:8080');
  assert.deepEqual(requests.map((r) => r.url), [
    '../groups/room%3A7/call', '../sessions/abc/calls', '../../metrics', '../nodes', '../nodes/web-1%3A8080/metrics',
  ]);
  assert.deepEqual(metrics, { status: 200, body: 'x 1\n' });
});

test('an error answer keeps its status and its JSON or text body', async () => {
  recordFetch(() => new Response('{"error":"method \\"x\\" is not registered"}', { status: 422, headers: { 'Content-Type': 'application/json' } }));
  assert.deepEqual(await new AdminClient('t').call('s', 'x', [], 10), { status: 422, body: { error: 'method "x" is not registered' } });
  recordFetch(() => new Response('not json', { status: 502, headers: { 'Content-Type': 'application/json' } }));
  assert.deepEqual(await new AdminClient('t').sessions(), { status: 502, body: 'not json' });
});

test('a daemon that does not answer is status 0 with a message', async () => {
  recordFetch(() => {
    throw new TypeError('fetch failed');
  });
  const answer = await new AdminClient('t').sessions();
  assert.equal(answer.status, 0);
  assert.match(answer.body.error, /did not answer \(fetch failed\)/);
  assert.deepEqual(await health(), { status: 0, body: '' });
});

test('health asks /healthz without a token', async () => {
  const requests = recordFetch(() => new Response('ok\n', { status: 200 }));
  assert.deepEqual(await health(), { status: 200, body: 'ok\n' });
  assert.equal(requests[0].url, paths.healthz);
  assert.equal(requests[0].init.headers, undefined);
});

test('parseArgs: an empty field is [], a JSON array is itself, anything else an error', () => {
  assert.deepEqual(parseArgs('  '), []);
  assert.deepEqual(parseArgs(' [1, "two", {"x": null}] '), [1, 'two', { x: null }]);
  assert.throws(() => parseArgs('{"a": 1}'), /must be a JSON array/);
  assert.throws(() => parseArgs('[1,'), /Arguments are not JSON/);
  assert.throws(() => parseArgs('7'), /must be a JSON array/);
});
